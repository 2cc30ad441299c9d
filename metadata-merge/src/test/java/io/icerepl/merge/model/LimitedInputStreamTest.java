package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The byte count that stops a metadata file at the configured limit or at the heap's bound. */
class LimitedInputStreamTest {
  private static final long MIB = 1024 * 1024;
  private static final MetadataHeapBound LARGE_HEAP = new MetadataHeapBound(1024 * MIB);

  private static InputStream limited(int size, long maxBytes, MetadataHeapBound heap) {
    return new LimitedInputStream(
        new ByteArrayInputStream(new byte[size]), maxBytes, heap, "v7.metadata.json");
  }

  @Test
  void aFileOfExactlyTheLimitIsReadWhole() throws IOException {
    try (InputStream in = limited(10, 10, LARGE_HEAP)) {
      assertThat(in.readAllBytes()).hasSize(10);
    }
  }

  @Test
  void theByteAfterTheLimitIsRefusedNamingTheFileAndTheLimit() throws IOException {
    try (InputStream in = limited(11, 10, LARGE_HEAP)) {
      assertThat(in.readNBytes(10)).hasSize(10);
      assertThatThrownBy(in::read)
          .isInstanceOf(BadInputException.class)
          .hasMessage(
              "Cannot read table metadata v7.metadata.json: larger than the configured limit of"
                  + " 10 bytes");
    }
  }

  @Test
  void bulkReadsAreCountedAsSingleBytesAre() throws IOException {
    try (InputStream in = limited(11, 10, LARGE_HEAP)) {
      assertThat(in.read()).isZero();
      assertThatThrownBy(() -> in.read(new byte[20], 0, 20))
          .isInstanceOf(BadInputException.class)
          .hasMessageEndingWith("limit of 10 bytes");
    }
  }

  @Test
  void aHeapHoldingLessThanTheLimitIsTheBoundNamed() throws IOException {
    MetadataHeapBound small = new MetadataHeapBound(MetadataHeapBound.RESERVE_BYTES + 3);
    assertThat(small.largestFileBytes()).isEqualTo(1);
    try (InputStream in = limited(2, 10, small)) {
      assertThat(in.read()).isZero();
      assertThatThrownBy(in::read)
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith(
              "Cannot read table metadata v7.metadata.json: larger than this process's heap holds");
    }
  }
}
