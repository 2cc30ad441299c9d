package io.icerepl.merge.deletes;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * Wraps the caller's OutputStream: counts the bytes written, never closes it (the caller owns it;
 * close only flushes), and remembers an IOException the stream threw so that a failure to write is
 * not mistaken for bad input when a library wraps it. Public for the deletion-vector rewrite, which
 * writes Puffin files the same way.
 */
public final class CountingOutput extends PositionOutputStream {
  private final OutputStream out;
  private long count = 0;
  private IOException writeFailure;

  public CountingOutput(OutputStream out) {
    this.out = out;
  }

  public long count() {
    return count;
  }

  /** The IOException the caller's stream threw, if any. */
  IOException writeFailure() {
    return writeFailure;
  }

  @Override
  public long getPos() {
    return count;
  }

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      writeFailure = e;
      throw e;
    }
    count += 1;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    try {
      out.write(bytes, offset, length);
    } catch (IOException e) {
      writeFailure = e;
      throw e;
    }
    count += length;
  }

  @Override
  public void flush() throws IOException {
    try {
      out.flush();
    } catch (IOException e) {
      writeFailure = e;
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    flush();
  }

  /** This stream as a Parquet OutputFile that can be created once. */
  OutputFile asOutputFile(String path) {
    CountingOutput self = this;
    return new OutputFile() {
      private boolean created = false;

      @Override
      public PositionOutputStream create(long blockSizeHint) throws IOException {
        if (created) {
          throw new IOException("Cannot create output file " + path + " twice");
        }
        created = true;
        return self;
      }

      @Override
      public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        return create(blockSizeHint);
      }

      @Override
      public boolean supportsBlockSize() {
        return false;
      }

      @Override
      public long defaultBlockSize() {
        return 0;
      }

      @Override
      public String getPath() {
        return path;
      }
    };
  }
}
