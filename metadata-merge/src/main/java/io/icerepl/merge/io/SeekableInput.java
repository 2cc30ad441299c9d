package io.icerepl.merge.io;

import java.io.Closeable;
import java.io.IOException;

/**
 * Random-access bytes of one file, passed into the pure rewriters so that they never open files
 * themselves. Parquet and Puffin keep their footers at the end, hence random access.
 */
public interface SeekableInput extends Closeable {

  /** The file's length in bytes. */
  long length() throws IOException;

  /** Reads exactly {@code length} bytes starting at {@code position}, or throws EOFException. */
  void readFully(long position, byte[] buffer, int offset, int length) throws IOException;

  @Override
  default void close() throws IOException {}
}
