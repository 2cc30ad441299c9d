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
    List<String> names = List.of("v1.metadata.json", "v2.metadata.json", "v3.metadata.json", "version-hint.text", "v2.metadata.json.crc");
    assertThat(SourceHead.resolve("m", names, Optional.of("2"))).contains("v3.metadata.json");
  }

  @Test
  void withoutHintTheSingleNewestVersionWins() {
    List<String> names = List.of("00001-a.metadata.json", "00002-b.gz.metadata.json", "00010-c.metadata.json.gz", "snap-1.avro");
    assertThat(SourceHead.resolve("m", names, Optional.empty())).contains("00010-c.metadata.json.gz");
  }

  @Test
  void twoFilesWithTheNewestVersionAreAmbiguous() {
    List<String> names = List.of("00001-a.metadata.json", "00002-b.metadata.json", "00002-c.metadata.json");
    assertThatThrownBy(() -> SourceHead.resolve("s3://b/t/metadata", names, Optional.empty()))
        .isInstanceOf(SourceHead.AmbiguousHeadException.class)
        .hasMessage("Cannot resolve the current metadata of s3://b/t/metadata: version 2 is held by more than one file"
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
}
