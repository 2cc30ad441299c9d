package io.icerepl.merge.puffin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.io.DecodeBounds;
import io.icerepl.merge.io.SeekableInput;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The footer of a Puffin file: {@code Magic FooterPayload FooterPayloadSize Flags Magic}, the file
 * starting with Magic too. Sizes are 4-byte little-endian signed ints; flags bit 0 of byte 0 says
 * the payload is compressed, as a single LZ4 frame with its content size (the spec's only footer
 * codec).
 *
 * @param fileLength the whole file's length
 * @param footerStart offset of the footer's leading magic: everything before it is magic and blobs
 * @param flags the footer's flags, kept for the rewritten footer
 * @param metadata the FileMetadata JSON object (decompressed), checked to have a "blobs" list of
 *     objects whose offset and length lie between the file's magic and the footer
 */
record PuffinFooter(long fileLength, long footerStart, int flags, ObjectNode metadata) {
  static final byte[] MAGIC = {0x50, 0x46, 0x41, 0x31};

  /** Flags bit 0 of byte 0. */
  private static final int FOOTER_PAYLOAD_COMPRESSED = 1;

  /** FooterPayloadSize (4) + Flags (4) + Magic (4). */
  private static final int FOOTER_STRUCT_LENGTH = 12;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  static PuffinFooter read(SeekableInput in, String fileName) {
    try {
      long length = in.length();
      if (length < MAGIC.length + MAGIC.length + FOOTER_STRUCT_LENGTH) {
        throw bad(fileName, "it has " + length + " bytes, too few for a Puffin file", null);
      }
      checkMagic(in, 0, fileName, "at the start");
      byte[] struct = new byte[FOOTER_STRUCT_LENGTH];
      in.readFully(length - FOOTER_STRUCT_LENGTH, struct, 0, FOOTER_STRUCT_LENGTH);
      if (!Arrays.equals(struct, 8, 12, MAGIC, 0, 4)) {
        throw bad(fileName, "no Puffin magic at its end (truncated?)", null);
      }
      ByteBuffer little = ByteBuffer.wrap(struct).order(ByteOrder.LITTLE_ENDIAN);
      int payloadSize = little.getInt(0);
      int flags = little.getInt(4);
      long footerStart = length - FOOTER_STRUCT_LENGTH - (long) payloadSize - MAGIC.length;
      if (payloadSize < 0 || footerStart < MAGIC.length) {
        throw bad(
            fileName, "footer payload size " + payloadSize + " does not fit in the file", null);
      }
      if ((flags & ~FOOTER_PAYLOAD_COMPRESSED) != 0) {
        throw new UnsupportedFeatureException(
            "Cannot rewrite deletion vector file "
                + fileName
                + ": its Puffin footer has unknown flags 0x"
                + Integer.toHexString(flags));
      }
      checkMagic(in, footerStart, fileName, "at the footer's start");
      byte[] payload =
          new byte
              [DecodeBounds.checkClaim(
                  "the Puffin footer", payloadSize, DecodeBounds.PUFFIN_FOOTER_BYTES)];
      in.readFully(footerStart + MAGIC.length, payload, 0, payloadSize);
      if ((flags & FOOTER_PAYLOAD_COMPRESSED) != 0) {
        payload = decompress(payload, fileName);
      }
      ObjectNode metadata = parse(payload, fileName);
      checkBlobs(metadata, footerStart, fileName);
      return new PuffinFooter(length, footerStart, flags, metadata);
    } catch (IOException e) {
      throw bad(fileName, PositionDeleteRewriter.reason(e), e);
    }
  }

  /** A footer around the JSON payload, compressed when this footer's flags say so. */
  byte[] footerBytes(byte[] json) {
    byte[] payload = (flags & FOOTER_PAYLOAD_COMPRESSED) != 0 ? compress(json) : json;
    ByteBuffer footer =
        ByteBuffer.allocate(MAGIC.length + payload.length + FOOTER_STRUCT_LENGTH)
            .order(ByteOrder.LITTLE_ENDIAN);
    footer.put(MAGIC).put(payload).putInt(payload.length).putInt(flags).put(MAGIC);
    return footer.array();
  }

  /**
   * One LZ4 frame with the content size in its header, as the Puffin spec requires, and independent
   * blocks. The pure-Java codec: the footer is small and no native code is loaded.
   */
  private static byte[] compress(byte[] json) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length / 2 + 64);
    try (LZ4FrameOutputStream frame =
        new LZ4FrameOutputStream(
            out,
            LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB,
            json.length,
            LZ4Factory.safeInstance().fastCompressor(),
            XXHashFactory.safeInstance().hash32(),
            LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE,
            LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
      frame.write(json);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot compress a Puffin footer in memory", e);
    }
    return out.toByteArray();
  }

  private static byte[] decompress(byte[] payload, String fileName) {
    try (LZ4FrameInputStream frame =
        new LZ4FrameInputStream(
            new ByteArrayInputStream(payload),
            LZ4Factory.safeInstance().safeDecompressor(),
            XXHashFactory.safeInstance().hash32())) {
      return DecodeBounds.readAtMost(
          frame, "the Puffin footer's LZ4 frame", DecodeBounds.PUFFIN_FOOTER_BYTES);
    } catch (DecodeBounds.BoundExceededException e) {
      throw bad(fileName, e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw bad(
          fileName,
          "footer payload is not a valid LZ4 frame: " + PositionDeleteRewriter.reason(e),
          e);
    }
  }

  private static void checkMagic(SeekableInput in, long position, String fileName, String where)
      throws IOException {
    byte[] magic = new byte[MAGIC.length];
    in.readFully(position, magic, 0, MAGIC.length);
    if (!Arrays.equals(magic, MAGIC)) {
      throw bad(fileName, "no Puffin magic " + where, null);
    }
  }

  private static ObjectNode parse(byte[] payload, String fileName) {
    JsonNode node;
    try {
      node = MAPPER.readTree(payload);
    } catch (IOException e) {
      throw bad(fileName, "footer payload is not JSON: " + PositionDeleteRewriter.reason(e), e);
    }
    if (!(node instanceof ObjectNode object)) {
      throw bad(fileName, "footer payload is not a JSON object", null);
    }
    return object;
  }

  private static void checkBlobs(ObjectNode metadata, long footerStart, String fileName) {
    JsonNode blobs = metadata.get("blobs");
    if (blobs == null || !blobs.isArray()) {
      throw bad(fileName, "footer has no \"blobs\" list", null);
    }
    for (JsonNode blob : blobs) {
      if (!blob.isObject()) {
        throw bad(fileName, "footer blob entry is not an object: " + blob, null);
      }
      JsonNode offset = blob.get("offset");
      JsonNode length = blob.get("length");
      if (offset == null
          || !offset.canConvertToLong()
          || !offset.isIntegralNumber()
          || length == null
          || !length.canConvertToLong()
          || !length.isIntegralNumber()) {
        throw bad(fileName, "footer blob entry lacks an integer offset or length: " + blob, null);
      }
      long start = offset.longValue();
      long size = length.longValue();
      if (start < MAGIC.length || size < 0 || start > footerStart - size) {
        throw bad(
            fileName,
            "blob at offset "
                + start
                + " with length "
                + size
                + " lies outside the blob area [4, "
                + footerStart
                + ")",
            null);
      }
      JsonNode properties = blob.get("properties");
      if (properties != null && !properties.isObject()) {
        throw bad(fileName, "footer blob properties are not an object: " + blob, null);
      }
    }
  }

  private static BadInputException bad(String fileName, String reason, Throwable cause) {
    return new BadInputException(
        "Cannot read deletion vector file " + fileName + ": " + reason, cause);
  }
}
