package io.icerepl.copier.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The fencing epoch a local lock file holds: the decimal number of its last holding, empty (0) in a
 * file an older release created. Read and written only under the file's OS lock.
 */
final class LockEpoch {
  /** An epoch is at most 19 digits; a longer file is not one of ours. */
  private static final int MAX_LENGTH = 20;

  private LockEpoch() {}

  /** Writes and returns one more than the epoch the file holds. */
  static long next(FileChannel channel, Path file) throws IOException {
    long next = read(channel, file) + 1;
    write(channel, next);
    return next;
  }

  static void write(FileChannel channel, long epoch) throws IOException {
    channel.truncate(0);
    channel.write(ByteBuffer.wrap(Long.toString(epoch).getBytes(StandardCharsets.US_ASCII)), 0);
    channel.force(false);
  }

  private static long read(FileChannel channel, Path file) throws IOException {
    long size = channel.size();
    if (size > MAX_LENGTH) {
      throw new IOException("Cannot read lock " + file + ": " + size + " bytes, not an epoch");
    }
    ByteBuffer bytes = ByteBuffer.allocate((int) size);
    while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) >= 0) {
      // reads until full
    }
    String text = new String(bytes.array(), 0, bytes.position(), StandardCharsets.US_ASCII).trim();
    if (text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException("Cannot read lock " + file + ": '" + text + "' is not an epoch", e);
    }
  }
}
