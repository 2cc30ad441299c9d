package io.icerepl.merge.head;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SourceHeadTest {
  @Test
  void versionHintWinsAndReadersLookPastIt() {
    List<String> names =
        List.of(
            "v1.metadata.json",
            "v2.metadata.json",
            "v3.metadata.json",
            "version-hint.text",
            "v2.metadata.json.crc");
    assertThat(SourceHead.resolve("m", names, Optional.of("2"))).contains("v3.metadata.json");
  }

  @Test
  void withoutHintTheSingleNewestVersionWins() {
    List<String> names =
        List.of(
            "00001-a.metadata.json",
            "00002-b.gz.metadata.json",
            "00010-c.metadata.json.gz",
            "snap-1.avro");
    assertThat(SourceHead.resolve("m", names, Optional.empty()))
        .contains("00010-c.metadata.json.gz");
  }

  @Test
  void twoFilesWithTheNewestVersionAreAmbiguous() {
    List<String> names =
        List.of("00001-a.metadata.json", "00002-b.metadata.json", "00002-c.metadata.json");
    assertThatThrownBy(() -> SourceHead.resolve("s3://b/t/metadata", names, Optional.empty()))
        .isInstanceOf(SourceHead.AmbiguousHeadException.class)
        .hasMessage(
            "Cannot resolve the current metadata of s3://b/t/metadata: version 2 is held by more than one file"
                + " [00002-b.metadata.json, 00002-c.metadata.json]; waiting for a later version to name one of them in its metadata-log");
  }

  @Test
  void aHintNamingNoFileIsAnError() {
    assertThatThrownBy(() -> SourceHead.resolve("m", List.of("v1.metadata.json"), Optional.of("7")))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("version-hint.text says '7'");
  }

  @Test
  void versionNumbersOfEveryConvention() {
    assertThat(MetadataFileNames.version("s3://b/t/metadata/v12.metadata.json")).hasValue(12);
    assertThat(MetadataFileNames.version("00012-6f3c.metadata.json")).hasValue(12);
    assertThat(MetadataFileNames.version("v3.gz.metadata.json")).hasValue(3);
    assertThat(MetadataFileNames.version("v3.metadata.json.gz")).hasValue(3);
    assertThat(MetadataFileNames.version(".v3.metadata.json.crc")).isEmpty();
    assertThat(MetadataFileNames.version("version-hint.text")).isEmpty();
  }

  private static final long NOW = 1_000_000L;
  private static final long SETTLE = 5_000L;

  private static SourceHead.Resolution resolveAt(
      Optional<String> hint, SourceHead.Listed... files) {
    return SourceHead.resolve("m", List.of(files), hint, NOW, SETTLE);
  }

  @Test
  void aCatalogStyleNewestFileYoungerThanTheSettleTimeIsNotTheHeadYet() {
    SourceHead.Resolution resolution =
        resolveAt(
            Optional.empty(),
            new SourceHead.Listed("00001-a.metadata.json", NOW - 60_000),
            new SourceHead.Listed("00002-b.metadata.json", NOW - 30_000),
            new SourceHead.Listed("00003-loser.metadata.json", NOW - 1_000));

    assertThat(resolution.head()).contains("00002-b.metadata.json");
    assertThat(resolution.settlesAtMs()).hasValue(NOW - 1_000 + SETTLE);
  }

  @Test
  void anUnsettledFileDoesNotNameTheHeadEvenWhenTwoYoungVersionsFollowEachOther() {
    SourceHead.Resolution resolution =
        resolveAt(
            Optional.empty(),
            new SourceHead.Listed("00001-a.metadata.json", NOW - 60_000),
            new SourceHead.Listed("00002-b.metadata.json", NOW - 4_000),
            new SourceHead.Listed("00003-c.metadata.json", NOW - 100));

    assertThat(resolution.head()).contains("00001-a.metadata.json");
    assertThat(resolution.settlesAtMs()).hasValue(NOW - 100 + SETTLE);
    // the replica lacks both: its lag counts from the older one
    assertThat(resolution.settlingSinceMs()).hasValue(NOW - 4_000);
  }

  @Test
  void aSettledSingleNewestFileIsTheHead() {
    SourceHead.Resolution resolution =
        resolveAt(
            Optional.empty(),
            new SourceHead.Listed("00001-a.metadata.json", NOW - 60_000),
            new SourceHead.Listed("00002-b.metadata.json", NOW - SETTLE));

    assertThat(resolution.head()).contains("00002-b.metadata.json");
    assertThat(resolution.settlesAtMs()).isEmpty();
  }

  @Test
  void onlyUnsettledFilesMakeTheTableWait() {
    assertThatThrownBy(
            () ->
                resolveAt(
                    Optional.empty(), new SourceHead.Listed("00000-a.metadata.json", NOW - 10)))
        .isInstanceOf(SourceHead.UnsettledHeadException.class)
        .hasMessage(
            "Cannot resolve the current metadata of m: its metadata files [00000-a.metadata.json] were"
                + " written less than 5000 ms ago; waiting for them to settle");
    assertThat(new SourceHead.UnsettledHeadException("x").retryable()).isTrue();
  }

  @Test
  void hadoopStyleFilesAndVersionHintsNeedNoSettling() {
    assertThat(
            resolveAt(
                    Optional.empty(),
                    new SourceHead.Listed("v1.metadata.json", NOW - 60_000),
                    new SourceHead.Listed("v2.metadata.json", NOW))
                .head())
        .contains("v2.metadata.json");
    assertThat(
            resolveAt(
                    Optional.of("00002-b.metadata.json"),
                    new SourceHead.Listed("00001-a.metadata.json", NOW - 60_000),
                    new SourceHead.Listed("00002-b.metadata.json", NOW))
                .head())
        .contains("00002-b.metadata.json");
  }

  @Test
  void aYoungFileWhoseVersionOverflowsIsNoCandidate() {
    SourceHead.Resolution resolution =
        resolveAt(
            Optional.empty(),
            new SourceHead.Listed("00001-a.metadata.json", NOW - 60_000),
            new SourceHead.Listed("99999999999999999999-b.metadata.json", NOW));

    assertThat(resolution.head()).contains("00001-a.metadata.json");
    assertThat(resolution.settlesAtMs()).isEmpty();
  }
}
