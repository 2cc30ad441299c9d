package io.icerepl.merge.manifest;

import io.icerepl.merge.error.BadInputException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileConstants;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * One Avro object container file (manifests, manifest lists, Avro delete files) read record by
 * record with its own writer schema, and a writer for a copy of it: same schema, same user
 * metadata, same codec, same sync marker (so that the same input always gives the same output
 * bytes).
 *
 * <p>Every failure to read the input becomes a {@link BadInputException} naming the file; failures
 * to write the output become {@link UncheckedIOException}. Neither the caller's input nor its
 * output stream is closed.
 */
public final class AvroContainer implements AutoCloseable {

  private static final String RESERVED_META_PREFIX = "avro.";

  static {
    AvroCodecs.register();
  }

  private final String noun;
  private final GenericData data;
  private final DataFileStream<GenericRecord> stream;
  private final byte[] sync;
  private long recordsRead;

  private AvroContainer(
      String noun, GenericData data, DataFileStream<GenericRecord> stream, byte[] sync) {
    this.noun = noun;
    this.data = data;
    this.stream = stream;
    this.sync = sync;
  }

  /**
   * Opens a container file.
   *
   * @param noun what the file is, with its name, e.g. "manifest list snap-1.avro"; used in messages
   */
  public static AvroContainer open(InputStream in, String noun) {
    if (in == null) {
      throw new NullPointerException("in");
    }
    // No generic conversions: every value stays in its raw Avro form, so it is written back as
    // read.
    GenericData data = new GenericData();
    BlockFramedInputStream framed;
    try {
      framed = BlockFramedInputStream.open(new BufferedInputStream(in, 64 * 1024), noun);
    } catch (BadInputException e) {
      throw e; // already says what the file is not
    } catch (IOException | RuntimeException e) {
      throw new BadInputException(
          "Cannot read " + noun + ": cannot read the Avro header: " + describe(e), e);
    }
    try {
      DataFileStream<GenericRecord> stream =
          new DataFileStream<>(framed, new GenericDatumReader<>(null, null, data));
      return new AvroContainer(noun, data, stream, framed.sync());
    } catch (IOException | RuntimeException e) {
      throw new BadInputException(
          "Cannot read " + noun + ": cannot read the Avro header: " + describe(e), e);
    }
  }

  public Schema schema() {
    return stream.getSchema();
  }

  /** How many records have been read so far. */
  public long recordsRead() {
    return recordsRead;
  }

  /** The next record, or null after the last. */
  public GenericRecord next() {
    try {
      if (!stream.hasNext()) {
        return null;
      }
      GenericRecord record = stream.next();
      recordsRead++;
      return record;
    } catch (RuntimeException e) {
      // Only Avro decoding runs here: whatever it throws means the bytes are bad.
      throw new BadInputException(
          "Cannot read "
              + noun
              + ": record "
              + (recordsRead + 1)
              + " is unreadable: "
              + describe(e),
          e);
    }
  }

  /** A writer for a copy of this file into {@code out}; close it to finish the copy. */
  public DataFileWriter<GenericRecord> newWriter(OutputStream out) {
    if (out == null) {
      throw new NullPointerException("out");
    }
    Schema schema = schema();
    DataFileWriter<GenericRecord> writer =
        new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema, data));
    writer.setCodec(codec());
    List<String> keys = stream.getMetaKeys();
    for (String key : keys) {
      if (!key.startsWith(RESERVED_META_PREFIX)) {
        writer.setMeta(key, stream.getMeta(key));
      }
    }
    try {
      return writer.create(schema, new NonClosingOutputStream(out), sync);
    } catch (IOException e) {
      throw writeFailure(e);
    }
  }

  public void append(DataFileWriter<GenericRecord> writer, GenericRecord record) {
    try {
      writer.append(record);
    } catch (IOException e) {
      throw writeFailure(e);
    }
  }

  public void finish(DataFileWriter<GenericRecord> writer) {
    try {
      writer.close();
    } catch (IOException e) {
      throw writeFailure(e);
    }
  }

  BadInputException bad(String reason) {
    return new BadInputException("Cannot read " + noun + ": " + reason);
  }

  UncheckedIOException writeFailure(IOException e) {
    return new UncheckedIOException("Cannot write a copy of " + noun + ": " + describe(e), e);
  }

  private CodecFactory codec() {
    String name = stream.getMetaString(DataFileConstants.CODEC);
    if (name == null) {
      return CodecFactory.nullCodec();
    }
    try {
      return CodecFactory.fromString(name);
    } catch (RuntimeException e) {
      throw new BadInputException(
          "Cannot read " + noun + ": unsupported Avro codec '" + name + "'", e);
    }
  }

  @Override
  public void close() {
    try {
      stream.close(); // closes only the non-closing wrapper
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The most telling message of an exception, looking through Avro's wrapping of IOExceptions. */
  static String describe(Throwable e) {
    Throwable shown = e;
    while (shown instanceof AvroRuntimeException && shown.getCause() != null) {
      shown = shown.getCause();
    }
    String message = shown.getMessage();
    return message == null ? shown.getClass().getSimpleName() : message;
  }

  private static final class NonClosingOutputStream extends OutputStream {
    private final OutputStream out;

    NonClosingOutputStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.flush();
    }
  }
}
