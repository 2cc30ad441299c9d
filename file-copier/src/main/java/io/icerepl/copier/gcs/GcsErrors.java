package io.icerepl.copier.gcs;

import com.google.cloud.storage.StorageException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.Optional;

/**
 * How a GCS error reaches callers, in one place: a missing object (404) is a {@link
 * NoSuchFileException} of the path, as on every store; any other failure an {@link IOException}
 * naming the path, GCS's status code and reason. The client library throws {@link StorageException}
 * from requests but wraps it in an {@code IOException} from its channels, so both are looked
 * through.
 */
final class GcsErrors {
  static final int NOT_FOUND = 404;
  static final int PRECONDITION_FAILED = 412;

  private GcsErrors() {}

  /** One call to GCS. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code call}, its GCS errors mapped as this class says; other {@code IOException}s (a
   * producer's own) pass as they are.
   */
  static <T> T run(String verb, String path, Call<T> call) throws IOException {
    try {
      return call.run();
    } catch (StorageException e) {
      throw translate(verb, path, e);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException e) {
      Optional<StorageException> cause = storageCause(e);
      if (cause.isPresent()) {
        throw translate(verb, path, cause.get());
      }
      throw e;
    }
  }

  /** 404 as {@link NoSuchFileException}, anything else as an IOException saying what GCS said. */
  static IOException translate(String verb, String path, StorageException e) {
    if (e.getCode() == NOT_FOUND) {
      NoSuchFileException missing = new NoSuchFileException(path);
      missing.initCause(e);
      return missing;
    }
    return new IOException(
        "Cannot "
            + verb
            + " "
            + path
            + ": GCS answered "
            + e.getCode()
            + (e.getReason() == null ? "" : " (" + e.getReason() + ")")
            + ": "
            + e.getMessage(),
        e);
  }

  /** Whether {@code e} is, or wraps, GCS's refusal of a request whose precondition failed. */
  static boolean preconditionFailed(Throwable e) {
    return hasStatus(e, PRECONDITION_FAILED);
  }

  /** Whether {@code e} is, or wraps, a GCS answer with {@code status}. */
  static boolean hasStatus(Throwable e, int status) {
    return storageCause(e).map(s -> s.getCode() == status).orElse(false);
  }

  private static Optional<StorageException> storageCause(Throwable e) {
    for (Throwable at = e; at != null; at = at.getCause()) {
      if (at instanceof StorageException storage) {
        return Optional.of(storage);
      }
    }
    return Optional.empty();
  }
}
