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

  @Test
  void readingStopsAtTheLimitInsteadOfReadingEverythingFirst() {
    // "{" then spaces without end: the stream fails the test once more than the limit (and a
    // read buffer) has been taken from it, so only a reader that stops at the limit passes
    long limit = MIB;
    java.io.InputStream endless = endlessObject(limit);

    assertThatThrownBy(() -> TableMetadataParser.read(endless, "v1.metadata.json", limit))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata v1.metadata.json: larger than the configured limit of "
                + limit
                + " bytes");
  }

  @Test
  void aGzipBombIsDecompressedOnlyAsFarAsTheLimit() {
    // 600 MiB of padding in about 600 KB: a reader that stopped at 1 MiB has taken a read buffer
    // of it (128 KB), one that read everything first all of it
    byte[] bomb = GzipBomb.of("{", ' ', 600 * MIB, "}");
    long[] taken = {0};
    java.io.InputStream counted =
        new java.io.FilterInputStream(new ByteArrayInputStream(bomb)) {
          @Override
          public int read(byte[] b, int off, int len) throws java.io.IOException {
            int n = super.read(b, off, len);
            taken[0] += Math.max(0, n);
            if (taken[0] > 256 * 1024) {
              throw new AssertionError("took " + taken[0] + " compressed bytes of " + bomb.length);
            }
            return n;
          }

          @Override
          public int read() throws java.io.IOException {
            int b = super.read();
            taken[0]++;
            return b;
          }
        };

    assertThatThrownBy(() -> TableMetadataParser.read(counted, "v1.metadata.json.gz", MIB))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("larger than the configured limit of " + MIB + " bytes");
    assertThat(taken[0]).isLessThanOrEqualTo(256 * 1024).isLessThan(bomb.length / 2);
  }

  @Test
  void aFileLargerThanTheHeapHoldsIsRefusedNamingTheHeapAsSoonAsThatMuchWasRead() {
    // a heap that holds files of 1 MiB, a configured limit of 256 MiB, a file without end: only a
    // reader that stops at the heap's bound passes
    MetadataHeapBound heap = new MetadataHeapBound(MetadataHeapBound.RESERVE_BYTES + 3 * MIB);
    assertThat(heap.largestFileBytes()).isEqualTo(MIB);
    java.io.InputStream endless = endlessObject(heap.largestFileBytes());

    assertThatThrownBy(
            () ->
                TableMetadataParser.read(
                    endless,
                    "s3://b/t/metadata/v9.metadata.json",
                    TableMetadataParser.DEFAULT_MAX_METADATA_BYTES,
                    heap))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata s3://b/t/metadata/v9.metadata.json: larger than this"
                + " process's heap holds (over 1 MiB read; a maximum heap of 35 MiB holds metadata"
                + " files up to 1 MiB, at 3.0× their size plus 32 MiB); give the JVM -Xmx800m to"
                + " read files up to the configured limit of 256 MiB");
  }

  @Test
  void aFileWithinTheHeapsBoundReadsAsBefore() {
    MetadataHeapBound heap = new MetadataHeapBound(MetadataHeapBound.RESERVE_BYTES + 3 * MIB);
    byte[] small = GzipBomb.of("{", ' ', MIB / 2, "}");
    assertThatThrownBy(
            () ->
                TableMetadataParser.read(
                    new ByteArrayInputStream(small), "v1.metadata.json.gz", MIB / 4, heap))
        .as("the configured limit, the smaller bound here, is the one named")
        .hasMessage(
            "Cannot read table metadata v1.metadata.json.gz: larger than the configured limit of "
                + MIB / 4
                + " bytes");
  }

  @Test
  void theHeapTheBigMetadataFigureRunsInHoldsItsFile() {
    // benchmark big-metadata: a 1000 MiB file under -Xmx3104m
    assertThat(MetadataHeapBound.heapMibFor(1024 * MIB)).isEqualTo(3104);
    assertThat(new MetadataHeapBound(3104 * MIB).largestFileBytes()).isEqualTo(1024 * MIB);
  }

  @Test
  void theDefaultHeapOfAOneGibContainerHoldsFilesOfOrdinaryAndLongHistories() {
    // a JVM's default heap in a 1 GiB container is 256 MiB: the process's own need (about 22 MiB
    // after GC) is reserved, not the whole heap; a 93 MiB table's next commit replicates there
    MetadataHeapBound heap = new MetadataHeapBound(256 * MIB);
    assertThat(heap.largestFileBytes()).isEqualTo((long) (224 * MIB / 3.0));
    assertThat(new MetadataHeapBound(64 * MIB).largestFileBytes()).isGreaterThan(8 * MIB);
    assertThat(new MetadataHeapBound(16 * MIB).largestFileBytes()).isZero();
  }

  @Test
  void aSmallFileReadsUnderTheDefaultHeapOfAOneGibContainer() {
    byte[] small = GzipBomb.of("{", ' ', 64 * 1024, "}");
    assertThatThrownBy(
            () ->
                TableMetadataParser.read(
                    new ByteArrayInputStream(small),
                    "v1.metadata.json.gz",
                    TableMetadataParser.DEFAULT_MAX_METADATA_BYTES,
                    new MetadataHeapBound(256 * MIB)))
        .as("read to its end: the heap's bound did not stop it")
        .hasMessageNotContaining("heap")
        .hasMessageContaining("format-version");
  }

  /**
   * "{" then spaces without end: the stream fails the test once more than {@code limit} (and a read
   * buffer) has been taken from it, so only a reader that stops at the limit passes.
   */
  private static java.io.InputStream endlessObject(long limit) {
    long allowed = limit + 64 * 1024;
    return new java.io.InputStream() {
      long read;

      @Override
      public int read() {
        if (++read > allowed) {
          throw new AssertionError("read " + read + " bytes, past the limit of " + limit);
        }
        return read == 1 ? '{' : ' ';
      }
    };
  }
}
