package io.icerepl.copier.azure;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.models.BlobHttpHeaders;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlockBlobItem;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * A block blob written as a stream, in bounded memory: each full buffer is staged as an uncommitted
 * block (Put Block), and only {@link #commit} makes the blob, with one Put Block List naming them
 * all, so a reader sees the whole new content or none. Content that fits one block goes in a single
 * Put Blob instead. A writer that fails simply never commits; Azure discards uncommitted blocks
 * after a week.
 *
 * <p>Block IDs carry a random prefix: the uncommitted blocks of a blob are shared by every writer
 * of it, and two writers racing to create the same blob must not stage over each other's blocks.
 * The commit of a block list sets the blob's Content-MD5, computed over the blocks as they are
 * staged, which Azure keeps for a block list; for Put Blob Azure computes it itself. So the blob's
 * MD5 is known however it was written, and a small write is hashed once, by Azure.
 *
 * <p>The buffer starts small and doubles up to the block size as content arrives: most objects
 * (metadata files, small data files) are far smaller than a block, and a full block allocated per
 * write would cost more than the copy itself.
 */
final class BlockBlobUpload extends OutputStream {
  private final BlockBlobClient blob;
  private final String path;
  private static final int INITIAL_BUFFER = 64 * 1024;
  private final int blockSize;
  private byte[] buffer;
  private final String idPrefix = UUID.randomUUID().toString();
  private final List<String> blockIds = new ArrayList<>();
  private final MessageDigest md5;
  private int filled;
  private long total;
  private boolean finished;

  BlockBlobUpload(BlockBlobClient blob, String path, int blockSize) {
    this.blob = blob;
    this.path = path;
    this.blockSize = blockSize;
    this.buffer = new byte[Math.min(blockSize, INITIAL_BUFFER)];
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is missing from this JVM", e);
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    if (finished) {
      throw new IOException("Cannot write " + path + ": the upload has finished");
    }
    while (length > 0) {
      if (filled == buffer.length) {
        if (buffer.length < blockSize) {
          buffer = Arrays.copyOf(buffer, (int) Math.min(blockSize, 2L * buffer.length));
        } else {
          stage();
        }
      }
      int n = Math.min(length, buffer.length - filled);
      System.arraycopy(bytes, offset, buffer, filled, n);
      filled += n;
      total += n;
      offset += n;
      length -= n;
    }
  }

  /** Bytes written so far. */
  long length() {
    return total;
  }

  /**
   * Makes the blob from everything written, if {@code conditions} still hold when it lands.
   *
   * @return the new blob's ETag
   */
  String commit(BlobRequestConditions conditions) throws IOException {
    finished = true;
    if (blockIds.isEmpty()) {
      BlockBlobItem item =
          AzureErrors.run(
              "write",
              path,
              () ->
                  blob.uploadWithResponse(
                          new BlockBlobSimpleUploadOptions(
                                  BinaryData.fromByteBuffer(ByteBuffer.wrap(buffer, 0, filled)))
                              .setRequestConditions(conditions),
                          null,
                          Context.NONE)
                      .getValue());
      return item.getETag();
    }
    if (filled > 0) {
      stage();
    }
    BlobHttpHeaders headers = new BlobHttpHeaders().setContentMd5(md5.digest());
    BlockBlobItem item =
        AzureErrors.run(
            "write",
            path,
            () ->
                blob.commitBlockListWithResponse(
                        new BlockBlobCommitBlockListOptions(blockIds)
                            .setHeaders(headers)
                            .setRequestConditions(conditions),
                        null,
                        Context.NONE)
                    .getValue());
    return item.getETag();
  }

  private void stage() throws IOException {
    String id =
        Base64.getEncoder()
            .encodeToString(
                String.format("%s-%06d", idPrefix, blockIds.size())
                    .getBytes(StandardCharsets.US_ASCII));
    md5.update(buffer, 0, filled);
    // the call returns once the block is stored, so the buffer is free again after it
    BinaryData block = BinaryData.fromByteBuffer(ByteBuffer.wrap(buffer, 0, filled));
    AzureErrors.run(
        "write a block of",
        path,
        () -> {
          blob.stageBlock(id, block);
          return null;
        });
    blockIds.add(id);
    filled = 0;
  }
}
