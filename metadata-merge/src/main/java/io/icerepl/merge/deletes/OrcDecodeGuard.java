package io.icerepl.merge.deletes;

import io.icerepl.merge.error.BadInputException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * ORC's integer readers never end on a stream that stops inside a run: they add what each read
 * returns to the count of bytes read, end of stream's -1 included, and spin (in {@code
 * SerializationUtils}, every ORC version to date). A truncated or corrupted delete file from the
 * source would hold a lane and a core for ever. The decoding runs on a thread of its own with a
 * deadline far above any real file's decoding time; past it the thread is stopped, which is safe
 * here because it only decodes buffers of its own, and the file is bad input naming why.
 */
final class OrcDecodeGuard {
  private OrcDecodeGuard() {}

  /** Decoding a position delete file runs at tens of MB/s; this allows a hundred times less. */
  private static final long BYTES_PER_SECOND = 1024 * 1024;

  /** The deadline of a file of {@code length} bytes: a base, plus one second per MiB. */
  static Duration deadline(long length) {
    return Duration.ofSeconds(10 + length / BYTES_PER_SECOND);
  }

  @FunctionalInterface
  interface Decode<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code decode} within {@code deadline}, passing on its result or its exception.
   *
   * @throws BadInputException when it did not finish in time
   */
  static <T> T within(String fileName, Duration deadline, Decode<T> decode) throws IOException {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread worker =
        new Thread(
            () -> {
              try {
                result.complete(decode.run());
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            },
            "orc-decode " + fileName);
    worker.setDaemon(true);
    worker.start();
    try {
      return result.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new BadInputException(
          "Cannot read position delete file "
              + fileName
              + ": ORC's reader did not finish decoding it within "
              + deadline.toSeconds()
              + " s, as it never does on a stream that ends inside a run (a truncated or"
              + " corrupted file)"
              + stop(worker));
    } catch (InterruptedException e) {
      stop(worker);
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while reading position delete file " + fileName, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    }
  }

  /**
   * Stops the spinning decoder. Java 17 still stops a thread; a later Java refuses, and the thread
   * is left to spin, which the message says.
   *
   * @return what the error message adds
   */
  @SuppressWarnings({"deprecation", "removal"})
  private static String stop(Thread worker) {
    try {
      worker.stop();
      return "";
    } catch (UnsupportedOperationException e) {
      return "; this Java cannot stop its decoding thread, which keeps a core busy until the"
          + " service restarts";
    }
  }
}
