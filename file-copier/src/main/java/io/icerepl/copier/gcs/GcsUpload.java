package io.icerepl.copier.gcs;

import com.google.cloud.WriteChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobWriteOption;
import io.icerepl.copier.store.ObjectStore.Writer;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;

/**
 * A write to GCS as a stream: a resumable upload in chunks of {@code chunkBytes} (the memory a
 * write holds), finalized by closing its channel once the producer has written everything, so a
 * reader sees the whole object or none and a failed producer leaves nothing (GCS drops an
 * unfinished session after a week).
 */
record GcsUpload(Storage storage, int chunkBytes) {

  /**
   * Streams what {@code writer} produces into one resumable upload of {@code path}, finalized only
   * after the producer succeeded.
   *
   * @return the bytes written
   */
  long upload(String verb, String path, Writer writer, BlobWriteOption... options)
      throws IOException {
    GcsLocation at = GcsLocation.parse(path);
    WriteChannel channel =
        GcsErrors.run(
            verb,
            path,
            () ->
                storage.writer(
                    BlobInfo.newBuilder(BlobId.of(at.bucket(), at.name())).build(), options));
    channel.setChunkSize(chunkBytes);
    CountingOutputStream out = new CountingOutputStream(Channels.newOutputStream(channel));
    // A failing producer leaves the channel open: closing it would finalize a partial object.
    GcsErrors.run(
        verb,
        path,
        () -> {
          writer.writeTo(out);
          return null;
        });
    GcsErrors.run(
        verb,
        path,
        () -> {
          channel.close();
          return null;
        });
    return out.count;
  }

  /** Counts what the producer wrote, the write's length. */
  private static final class CountingOutputStream extends FilterOutputStream {
    long count;

    CountingOutputStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }

    @Override
    public void close() {
      // The store finalizes the upload, only after the producer succeeded.
    }
  }
}
