package io.icerepl.copier.s3;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Holds what a writer produces until it has finished, so that nothing reaches S3 from a writer that
 * fails halfway: in memory up to a threshold, in a temporary file beyond.
 */
final class WriteBuffer extends OutputStream {
  private final long memoryLimit;
  private ByteArrayOutputStream memory = new ByteArrayOutputStream();
  private Path file;
  private OutputStream fileOut;
  private long size;

  WriteBuffer(long memoryLimit) {
    this.memoryLimit = memoryLimit;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    if (file == null && size + length > memoryLimit) {
      file = Files.createTempFile("s3-write-", ".tmp");
      fileOut = new BufferedOutputStream(Files.newOutputStream(file), 256 * 1024);
      memory.writeTo(fileOut);
      memory = null;
    }
    (file == null ? memory : fileOut).write(bytes, offset, length);
    size += length;
  }

  @Override
  public void close() throws IOException {
    if (fileOut != null) {
      fileOut.close();
    }
  }

  long size() {
    return size;
  }

  /** The bytes when they stayed in memory, else null (then see {@link #file()}). */
  byte[] bytes() {
    return memory == null ? null : memory.toByteArray();
  }

  Path file() {
    return file;
  }

  /** Reads the bytes back, after {@link #close()}. */
  InputStream openInput() throws IOException {
    return memory != null
        ? new ByteArrayInputStream(memory.toByteArray())
        : Files.newInputStream(file);
  }

  /** Deletes the temporary file, if any. */
  void discard() throws IOException {
    close();
    if (file != null) {
      Files.deleteIfExists(file);
    }
  }
}
