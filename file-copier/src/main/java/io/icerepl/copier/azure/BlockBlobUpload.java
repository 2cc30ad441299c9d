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
 * The commit sets the blob's Content-MD5 computed while streaming, which Azure keeps for a block
 * list (it computes it itself only for Put Blob), so the blob's MD5 is known however it was
 * written.
 */
final class BlockBlobUpload extends OutputStream {
  private final BlockBlobClient blob;
  private final String path;
  private final byte[] buffer;
  private final String idPrefix = UUID.randomUUID().toString();
  private final List<String> blockIds = new ArrayList<>();
  private final MessageDigest md5;
  private int filled;
  private long total;
  private boolean finished;

  BlockBlobUpload(BlockBlobClient blob, String path, int blockSize) {
    this.blob = blob;
    this.path = path;
    this.buffer = new byte[blockSize];
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
        stage();
      }
      int n = Math.min(length, buffer.length - filled);
      System.arraycopy(bytes, offset, buffer, filled, n);
      md5.update(bytes, offset, n);
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
    BlobHttpHeaders headers = new BlobHttpHeaders().setContentMd5(md5.digest());
    if (blockIds.isEmpty()) {
      BlockBlobItem item =
          AzureErrors.run(
              "write",
              path,
              () ->
                  blob.uploadWithResponse(
                          new BlockBlobSimpleUploadOptions(
                                  BinaryData.fromByteBuffer(ByteBuffer.wrap(buffer, 0, filled)))
                              .setHeaders(headers)
                              .setRequestConditions(conditions),
                          null,
                          Context.NONE)
                      .getValue());
      return item.getETag();
    }
    if (filled > 0) {
      stage();
    }
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
