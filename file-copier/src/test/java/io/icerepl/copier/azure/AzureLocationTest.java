package io.icerepl.copier.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class AzureLocationTest {
  @Test
  void anAbfssLocationNamesAccountContainerAndBlob() {
    AzureLocation at =
        AzureLocation.parse(
            "abfss://warehouse@myaccount.dfs.core.windows.net/db/t/metadata/v1.metadata.json");

    assertThat(at.account()).isEqualTo("myaccount");
    assertThat(at.blobHost()).isEqualTo("myaccount.blob.core.windows.net");
    assertThat(at.container()).isEqualTo("warehouse");
    assertThat(at.blobName()).isEqualTo("db/t/metadata/v1.metadata.json");
  }

  @Test
  void theDfsAndBlobHostsOfAnAccountNameTheSameObjects() {
    String path = "/db/t/data/part-0.parquet";
    AzureLocation abfss = AzureLocation.parse("abfss://c@acct.dfs.core.windows.net" + path);

    assertThat(AzureLocation.parse("abfs://c@acct.dfs.core.windows.net" + path)).isEqualTo(abfss);
    assertThat(AzureLocation.parse("wasbs://c@acct.blob.core.windows.net" + path)).isEqualTo(abfss);
    assertThat(AzureLocation.parse("wasb://c@acct.blob.core.windows.net" + path)).isEqualTo(abfss);
  }

  @Test
  void anotherCloudKeepsItsDomain() {
    AzureLocation at = AzureLocation.parse("abfss://c@acct.dfs.core.chinacloudapi.cn/x");

    assertThat(at.blobHost()).isEqualTo("acct.blob.core.chinacloudapi.cn");
  }

  @Test
  void aContainerRootIsAnEmptyBlobNameAndAFolderListsUnderItsSlash() {
    assertThat(AzureLocation.parse("abfss://c@acct.dfs.core.windows.net").blobName()).isEmpty();
    assertThat(AzureLocation.parse("abfss://c@acct.dfs.core.windows.net/").folderPrefix())
        .isEmpty();
    assertThat(AzureLocation.parse("abfss://c@acct.dfs.core.windows.net/db/t").folderPrefix())
        .isEqualTo("db/t/");
    assertThat(AzureLocation.parse("abfss://c@acct.dfs.core.windows.net/db/t/").folderPrefix())
        .isEqualTo("db/t/");
  }

  @Test
  void anythingElseIsRefusedNamingTheLocation() {
    for (String location :
        List.of(
            "s3://bucket/key",
            "file:/tmp/x",
            "abfss://acct.dfs.core.windows.net/x",
            "abfss://c@acct.queue.core.windows.net/x",
            "wasbs://c@localhost/x",
            "abfss://c@.dfs.core.windows.net/x",
            "abfss://c@acct.dfs./x",
            "not a uri at all")) {
      assertThatThrownBy(() -> AzureLocation.parse(location))
          .as(location)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(location);
    }
  }

  @Test
  void theMessageSaysWhatWasExpected() {
    assertThatThrownBy(() -> AzureLocation.parse("gs://bucket/x"))
        .hasMessageContaining("abfss, abfs, wasbs or wasb");
    assertThatThrownBy(() -> AzureLocation.parse("abfss://c@acct.file.core.windows.net/x"))
        .hasMessageContaining("<account>.dfs.<suffix> or <account>.blob.<suffix>");
  }
}
