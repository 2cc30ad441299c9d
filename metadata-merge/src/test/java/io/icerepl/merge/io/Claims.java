package io.icerepl.merge.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.orc.OrcProto;

/**
 * The lengths and counts a file of each format claims, found where the format puts them, so that a
 * campaign can set each to a chosen value: towards its {@link DecodeBounds} bound and past it. A
 * random mutation rarely makes a length exactly large enough to matter; these do on purpose.
 */
final class Claims {
  private Claims() {}

  /**
   * One claim of a file.
   *
   * @param name what claims, e.g. "Avro block 1 size"
   * @param bound the most a reader may allocate for it; 0 for a count, which allocates nothing
   *     itself and must only never be read as given
   * @param max the largest value the field can hold
   * @param boundRefuses whether a claim past {@code bound} is refused by a {@link DecodeBounds}
   *     check; false where the format's own check (the claim does not fit in the file) comes first
   * @param claiming the file's bytes with the claim set to a value
   */
  record Claim(
      String name, long bound, long max, boolean boundRefuses, LongFunction<byte[]> claiming) {}

  /** The claims of {@code file}, by the format its magic bytes name; none for other input. */
  static List<Claim> of(byte[] file) {
    if (startsWith(file, new byte[] {'O', 'b', 'j', 1})) {
      return avro(file);
    }
    if (startsWith(file, "PAR1".getBytes(StandardCharsets.US_ASCII))) {
      return parquet(file);
    }
    if (startsWith(file, "ORC".getBytes(StandardCharsets.US_ASCII))) {
      return orc(file);
    }
    if (startsWith(file, "PFA1".getBytes(StandardCharsets.US_ASCII))) {
      return puffin(file);
    }
    return List.of();
  }

  /**
   * An Avro container's first block: its object count, its byte size and, in a snappy file, the
   * uncompressed length snappy's block starts with.
   */
  private static List<Claim> avro(byte[] file) {
    Reader in = new Reader(file, 4);
    boolean snappy = false;
    for (long n = in.zigzag(); n != 0; n = in.zigzag()) {
      if (n < 0) {
        n = -n;
        in.zigzag(); // the map block's size in bytes
      }
      for (long i = 0; i < n; i++) {
        String key = new String(in.bytes(), StandardCharsets.UTF_8);
        byte[] value = in.bytes();
        snappy |=
            key.equals("avro.codec") && "snappy".equals(new String(value, StandardCharsets.UTF_8));
      }
    }
    int countAt = in.at + 16; // past the sync marker
    Reader block = new Reader(file, countAt);
    block.zigzag();
    int sizeAt = block.at;
    long size = block.zigzag();
    int dataAt = block.at;
    List<Claim> claims = new ArrayList<>();
    claims.add(
        new Claim(
            "Avro block 1 object count",
            0,
            Long.MAX_VALUE,
            false,
            v -> splice(file, countAt, sizeAt, zigzag(v))));
    claims.add(
        new Claim(
            "Avro block 1 size",
            DecodeBounds.AVRO_BLOCK_BYTES,
            Long.MAX_VALUE,
            true,
            v -> splice(file, sizeAt, dataAt, zigzag(v))));
    if (snappy) {
      Reader data = new Reader(file, dataAt);
      data.varint();
      int lengthEnd = data.at;
      claims.add(
          new Claim(
              "snappy length of Avro block 1",
              DecodeBounds.AVRO_BLOCK_BYTES,
              Integer.MAX_VALUE,
              true,
              v -> {
                byte[] length = varint(v);
                byte[] withLength = splice(file, dataAt, lengthEnd, length);
                long resized = size - (lengthEnd - dataAt) + length.length;
                return splice(withLength, sizeAt, dataAt, zigzag(resized));
              }));
    }
    return claims;
  }

  /** The footer length in a Parquet file's last eight bytes. */
  private static List<Claim> parquet(byte[] file) {
    return List.of(
        new Claim(
            "Parquet footer length",
            DecodeBounds.PARQUET_FOOTER_BYTES,
            Integer.MAX_VALUE,
            true,
            v -> withIntLittleEndian(file, file.length - 8, v)));
  }

  /**
   * The sizes an ORC file's postscript claims: the compression block size ORC allocates for every
   * stream, and the footer's and metadata's lengths, which must lie inside the file.
   */
  private static List<Claim> orc(byte[] file) {
    int postScriptLength = file[file.length - 1] & 0xff;
    int start = file.length - 1 - postScriptLength;
    OrcProto.PostScript postScript;
    try {
      postScript = OrcProto.PostScript.parseFrom(Arrays.copyOfRange(file, start, file.length - 1));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Claim> claims = new ArrayList<>();
    claims.add(
        new Claim(
            "ORC compression block size",
            DecodeBounds.ORC_COMPRESSION_BLOCK_BYTES,
            Long.MAX_VALUE,
            true,
            v ->
                withPostScript(
                    file, start, postScript.toBuilder().setCompressionBlockSize(v).build())));
    claims.add(
        new Claim(
            "ORC footer length",
            file.length,
            Long.MAX_VALUE,
            true,
            v -> withPostScript(file, start, postScript.toBuilder().setFooterLength(v).build())));
    claims.add(
        new Claim(
            "ORC metadata length",
            file.length,
            Long.MAX_VALUE,
            true,
            v -> withPostScript(file, start, postScript.toBuilder().setMetadataLength(v).build())));
    return claims;
  }

  private static byte[] withPostScript(byte[] file, int start, OrcProto.PostScript postScript) {
    byte[] bytes = postScript.toByteArray();
    byte[] spliced = splice(file, start, file.length - 1, bytes);
    spliced[spliced.length - 1] = (byte) bytes.length;
    return spliced;
  }

  /** The footer payload size a Puffin file ends with, before its flags and magic. */
  private static List<Claim> puffin(byte[] file) {
    return List.of(
        new Claim(
            "Puffin footer payload size",
            DecodeBounds.PUFFIN_FOOTER_BYTES,
            Integer.MAX_VALUE,
            false,
            v -> withIntLittleEndian(file, file.length - 12, v)));
  }

  private static byte[] withIntLittleEndian(byte[] file, int at, long value) {
    byte[] bytes = file.clone();
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, (int) value);
    return bytes;
  }

  /** {@code file} with the bytes from {@code start} to {@code end} replaced by {@code with}. */
  private static byte[] splice(byte[] file, int start, int end, byte[] with) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(file.length + with.length);
    out.write(file, 0, start);
    out.write(with, 0, with.length);
    out.write(file, end, file.length - end);
    return out.toByteArray();
  }

  private static byte[] zigzag(long value) {
    return varint((value << 1) ^ (value >> 63));
  }

  private static byte[] varint(long value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(10);
    long rest = value;
    while ((rest & ~0x7fL) != 0) {
      out.write((int) ((rest & 0x7f) | 0x80));
      rest >>>= 7;
    }
    out.write((int) rest);
    return out.toByteArray();
  }

  private static boolean startsWith(byte[] file, byte[] magic) {
    return file.length >= magic.length
        && Arrays.equals(file, 0, magic.length, magic, 0, magic.length);
  }

  /** Reads Avro's varints and byte strings from a position. */
  private static final class Reader {
    private final byte[] file;
    private int at;

    Reader(byte[] file, int at) {
      this.file = file;
      this.at = at;
    }

    long varint() {
      long value = 0;
      for (int shift = 0; ; shift += 7) {
        int b = file[at++] & 0xff;
        value |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
    }

    long zigzag() {
      long raw = varint();
      return (raw >>> 1) ^ -(raw & 1);
    }

    byte[] bytes() {
      int length = (int) zigzag();
      byte[] bytes = Arrays.copyOfRange(file, at, at + length);
      at += length;
      return bytes;
    }
  }
}
