package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableLocationTest {

  @ParameterizedTest
  @CsvSource({
    "s3://replica/wh/t, s3a://replica/wh/t",
    "s3://replica/wh/t, s3n://replica/wh/t/",
    "s3://replica/wh/t/, s3://replica/wh/t//",
    "file:/tmp/r, /tmp/r",
    "file:///tmp/r, /tmp/r/",
    "file://localhost/tmp/r, file:/tmp/r",
    "abfss://c@acct.dfs.core.windows.net/wh/t, wasbs://c@acct.blob.core.windows.net/wh/t/",
    "abfss://c@acct.dfs.core.windows.net/wh/t, abfs://c@acct.dfs.core.windows.net/wh/t",
    "abfss://c@acct.dfs.core.windows.net/wh/t, wasb://c@acct.blob.core.windows.net/wh/t",
    "abfss://c@acct.dfs.core.chinacloudapi.cn/t, wasbs://c@acct.blob.core.chinacloudapi.cn/t",
    "gs://lake/wh/t, gs://lake/wh/t/",
  })
  void everySpellingOfOnePlaceIsOneLocation(String a, String b) {
    TableLocation x = TableLocation.of(a);
    TableLocation y = TableLocation.of(b);
    assertThat(x.sameAs(y)).isTrue();
    assertThat(x).isEqualTo(y).hasSameHashCodeAs(y);
    assertThat(x.overlaps(y)).isTrue();
    assertThat(x.spelled()).isEqualTo(a);
  }

  @ParameterizedTest
  @CsvSource({
    "s3://replica/wh/t, s3://replica/wh/t2",
    "s3://replica/wh/t, s3://other/wh/t",
    "/tmp/r, /tmp/rr",
    "gs://b/t, s3://b/t",
  })
  void differentPlacesDiffer(String a, String b) {
    assertThat(TableLocation.of(a).sameAs(TableLocation.of(b))).isFalse();
    assertThat(TableLocation.of(a).overlaps(TableLocation.of(b))).isFalse();
    assertThat(TableLocation.of(a)).isNotEqualTo(TableLocation.of(b));
  }

  @Test
  void aLocationContainsWhatLiesUnderItInAnySpelling() {
    TableLocation source = TableLocation.of("s3://lake/wh/db/t");
    TableLocation inside = TableLocation.of("s3a://lake/wh/db/t/replica/");
    assertThat(source.contains(inside)).isTrue();
    assertThat(inside.contains(source)).isFalse();
    assertThat(source.overlaps(inside)).isTrue();
    assertThat(inside.overlaps(source)).isTrue();
    assertThat(source.holds("s3n://lake/wh/db/t/data/x.parquet")).isTrue();
    assertThat(source.holds("s3://lake/wh/db/t2/data/x.parquet")).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    "abfss://c@acct.dfs.core.windows.net/wh/t, abfss://c@other.dfs.core.windows.net/wh/t",
    "abfss://c@acct.dfs.core.windows.net/wh/t, wasbs://d@acct.blob.core.windows.net/wh/t",
    "abfss://c@acct.dfs.core.windows.net/wh/t, s3://c/wh/t",
    "gs://lake/wh/t, s3://lake/wh/t",
  })
  void placesOnOtherAccountsContainersOrStoresAreOthers(String a, String b) {
    assertThat(TableLocation.of(a).overlaps(TableLocation.of(b))).isFalse();
  }

  @Test
  void anAzureLocationHoldsItsFilesSpelledThroughEitherEndpoint() {
    TableLocation table = TableLocation.of("wasbs://c@acct.blob.core.windows.net/wh/db/t");
    assertThat(table.canonical()).isEqualTo("abfss://c@acct.dfs.core.windows.net/wh/db/t");
    assertThat(table.holds("abfss://c@acct.dfs.core.windows.net/wh/db/t/data/x.parquet")).isTrue();
    assertThat(table.holds("abfss://c@acct.dfs.core.windows.net/wh/db/t2/x.parquet")).isFalse();
  }

  @Test
  void theCanonicalFormHasOneSpellingAndNoTrailingSlash() {
    assertThat(TableLocation.of("s3a://b/k/").canonical()).isEqualTo("s3://b/k");
    assertThat(TableLocation.of("file:///p/q///").canonical()).isEqualTo("/p/q");
    assertThat(TableLocation.of("s3://b/").canonical()).isEqualTo("s3://b");
    assertThat(TableLocation.of("file:///").canonical()).isEqualTo("/");
  }

  @Test
  void aBlankLocationIsRefused() {
    assertThatThrownBy(() -> TableLocation.of(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A table location must not be blank");
  }

  @Test
  void aLocationWithALineBreakIsRefusedWithoutRepeatingIt() {
    assertThatThrownBy(() -> TableLocation.of("s3://b/t\n12:00:00 INFO forged"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "A table location must not hold control characters; this one has U+000A at position 8");
  }
}
