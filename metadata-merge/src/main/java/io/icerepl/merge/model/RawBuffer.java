package io.icerepl.merge.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;

/**
 * One generator reused for every snapshot of a file: each entry is written into the same growing
 * buffer and taken out as its own byte array, so reading a long history allocates little besides
 * the entries themselves.
 */
final class RawBuffer implements AutoCloseable {
  private final ByteArrayBuilder bytes = new ByteArrayBuilder();
  private final JsonGenerator generator;

  RawBuffer() throws IOException {
    generator = TableMetadataParser.mapper().createGenerator(bytes);
    // entries are taken out one by one: no separator between the root values written
    generator.setRootValueSeparator(null);
  }

  JsonGenerator start() {
    return generator;
  }

  /** The length of the entry written so far: where its next value starts, after a separator. */
  int position() throws IOException {
    generator.flush();
    return bytes.size();
  }

  byte[] finish() throws IOException {
    generator.flush();
    byte[] entry = bytes.toByteArray();
    bytes.reset();
    return entry;
  }

  @Override
  public void close() throws IOException {
    generator.close();
  }
}
