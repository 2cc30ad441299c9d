package io.icerepl.merge.puffin;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.iceberg.puffin.FileMetadata;
import org.apache.iceberg.puffin.FileMetadataParser;

/**
 * Puffin files with an LZ4-compressed footer, made from ones Iceberg wrote (Iceberg 1.12's Puffin
 * writer and reader implement no LZ4): the footer payload becomes one LZ4 frame with its content
 * size, as the Puffin spec describes it, and flags bit 0 is set. Everything before the footer is
 * kept, so blob offsets stay valid.
 */
public final class Lz4PuffinFooters {
  private static final int STRUCT = 12;
  private static final int MAGIC = 4;

  private Lz4PuffinFooters() {}

  /** The same Puffin file with its (uncompressed) footer payload LZ4-compressed. */
  public static byte[] compressFooter(byte[] puffin) {
    int payloadSize = payloadSize(puffin);
    if (flags(puffin) != 0) {
      throw new IllegalArgumentException("footer already has flags " + flags(puffin));
    }
    int footerStart = puffin.length - STRUCT - payloadSize - MAGIC;
    byte[] json =
        Arrays.copyOfRange(puffin, footerStart + MAGIC, footerStart + MAGIC + payloadSize);
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    try (LZ4FrameOutputStream lz4 =
        new LZ4FrameOutputStream(
            frame,
            LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB,
            json.length,
            LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE,
            LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
      lz4.write(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] compressed = frame.toByteArray();
    ByteBuffer out =
        ByteBuffer.allocate(footerStart + MAGIC + compressed.length + STRUCT)
            .order(ByteOrder.LITTLE_ENDIAN);
    out.put(puffin, 0, footerStart + MAGIC).put(compressed);
    out.putInt(compressed.length).putInt(1).put(puffin, puffin.length - MAGIC, MAGIC);
    return out.array();
  }

  /** The footer's flags. */
  public static int flags(byte[] puffin) {
    return ByteBuffer.wrap(puffin, puffin.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  /** Where the footer's leading magic starts: the blobs end there. */
  public static int footerStart(byte[] puffin) {
    return puffin.length - STRUCT - payloadSize(puffin) - MAGIC;
  }

  /** The raw footer payload, as stored. */
  public static byte[] storedPayload(byte[] puffin) {
    int start = footerStart(puffin) + MAGIC;
    return Arrays.copyOfRange(puffin, start, start + payloadSize(puffin));
  }

  /** The footer's FileMetadata, decompressing an LZ4 payload first, parsed by Iceberg. */
  public static FileMetadata fileMetadata(byte[] puffin) {
    byte[] payload = storedPayload(puffin);
    if ((flags(puffin) & 1) != 0) {
      try (LZ4FrameInputStream lz4 = new LZ4FrameInputStream(new ByteArrayInputStream(payload))) {
        payload = lz4.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return FileMetadataParser.fromJson(
        new String(payload, java.nio.charset.StandardCharsets.UTF_8));
  }

  /** Whether the stored payload is one LZ4 frame declaring its content size (FLG bit 3). */
  public static boolean isLz4FrameWithContentSize(byte[] payload) {
    int magic = ByteBuffer.wrap(payload, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    return magic == 0x184D2204 && (payload[4] & 0x08) != 0;
  }

  private static int payloadSize(byte[] puffin) {
    return ByteBuffer.wrap(puffin, puffin.length - STRUCT, 4)
        .order(ByteOrder.LITTLE_ENDIAN)
        .getInt();
  }
}
