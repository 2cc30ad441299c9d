package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

/** The limits that keep a hostile metadata file from exhausting the heap. */
class MetadataLimitsTest {
  private static final long MIB = 1024 * 1024;

  @Test
  void aSmallGzipFileInflatingPastTheDefaultLimitIsRefusedNamingTheFile() {
    // whitespace is valid JSON padding: only the size limit can stop it
    byte[] bomb = GzipBomb.of("{", ' ', 300 * MIB, "}");
    assertThat(bomb.length).isLessThan((int) (2 * MIB));

    assertThatThrownBy(
            () ->
                TableMetadataParser.read(
                    new ByteArrayInputStream(bomb),
                    "s3://b/t/metadata/00009-x.metadata.json.gz",
                    TableMetadataParser.DEFAULT_MAX_METADATA_BYTES))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata s3://b/t/metadata/00009-x.metadata.json.gz: larger than the "
                + "configured limit of "
                + 256 * MIB
                + " bytes");
  }

  @Test
  void aStringLongerThan64MiBIsRefusedWhateverTheSizeLimit() {
    byte[] bomb = GzipBomb.of("{\"format-version\":2,\"location\":\"", 'a', 64 * MIB + 1, "\"}");

    assertThatThrownBy(
            () ->
                TableMetadataParser.read(
                    new ByteArrayInputStream(bomb), "v2.metadata.json.gz", Long.MAX_VALUE))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith(
            "Cannot read table metadata v2.metadata.json.gz: over the parser's limits: ")
        .hasMessageContaining("String value length (" + (64 * MIB + 1) + ")")
        .hasMessageContaining("exceeds the maximum allowed (" + 64 * MIB);
  }
}
