package io.icerepl.merge.deletes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.io.ByteArraySeekableInput;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.jupiter.api.Test;

class SeekableInputFileTest {
  private final byte[] bytes = {10, 11, 12, 13, 14, 15, 16, 17};
  private final SeekableInputFile file = new SeekableInputFile(new ByteArraySeekableInput(bytes));

  @Test
  void streamReadsFromTheSeekPositionAndReportsEndOfFile() throws IOException {
    try (SeekableInputStream stream = file.newStream()) {
      assertThat(file.getLength()).isEqualTo(8);
      stream.seek(6);
      assertThat(stream.read()).isEqualTo(16);
      byte[] buffer = new byte[5];
      assertThat(stream.read(buffer, 0, 5)).isEqualTo(1);
      assertThat(buffer[0]).isEqualTo((byte) 17);
      assertThat(stream.read()).isEqualTo(-1);
      assertThat(stream.read(buffer, 0, 5)).isEqualTo(-1);
      assertThat(stream.getPos()).isEqualTo(8);
    }
  }

  @Test
  void readFullyFillsHeapAndDirectBuffersOrThrowsEof() throws IOException {
    try (SeekableInputStream stream = file.newStream()) {
      stream.seek(2);
      ByteBuffer direct = ByteBuffer.allocateDirect(3);
      stream.readFully(direct);
      direct.flip();
      assertThat(new byte[] {direct.get(), direct.get(), direct.get()}).containsExactly(12, 13, 14);
      ByteBuffer heap = ByteBuffer.allocate(10);
      heap.position(4);
      assertThat(stream.read(heap)).isEqualTo(3);
      assertThat(heap.array()[4]).isEqualTo((byte) 15);
      assertThat(stream.getPos()).isEqualTo(8);

      stream.seek(7);
      assertThatThrownBy(() -> stream.readFully(new byte[2])).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> stream.readFully(ByteBuffer.allocate(2)))
          .isInstanceOf(EOFException.class);
    }
  }
}
