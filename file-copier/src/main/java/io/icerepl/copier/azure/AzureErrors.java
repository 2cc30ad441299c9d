package io.icerepl.copier.azure;

import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;

/**
 * What a failed Blob Storage request means to the store, decided in one place: a missing blob or
 * container is the {@link NoSuchFileException} every store reports, any other refusal an {@link
 * IOException} naming the path, the HTTP status and Azure's error code. Messages never carry a
 * request's URL or headers, where a SAS token or a signature would show.
 */
final class AzureErrors {
  private AzureErrors() {}

  /** A Blob Storage call. */
  @FunctionalInterface
  interface Call<T> {
    T run();
  }

  /** Runs {@code call}, mapping its failure as {@link #map} does. */
  static <T> T run(String action, String path, Call<T> call) throws IOException {
    try {
      return call.run();
    } catch (BlobStorageException e) {
      throw map(action, path, e);
    } catch (UncheckedIOException e) {
      throw new IOException("Cannot " + action + " " + path + ": " + e.getCause().getMessage(), e);
    }
  }

  static IOException map(String action, String path, BlobStorageException e) {
    if (isNotFound(e)) {
      NoSuchFileException missing = new NoSuchFileException(path, null, describe(e));
      missing.initCause(e);
      return missing;
    }
    return new IOException("Cannot " + action + " " + path + ": " + describe(e), e);
  }

  /** The blob or its container does not exist. */
  static boolean isNotFound(BlobStorageException e) {
    BlobErrorCode code = e.getErrorCode();
    return e.getStatusCode() == 404
        || BlobErrorCode.BLOB_NOT_FOUND.equals(code)
        || BlobErrorCode.CONTAINER_NOT_FOUND.equals(code);
  }

  /** The container does not exist (as opposed to a blob in it). */
  static boolean isContainerMissing(BlobStorageException e) {
    return BlobErrorCode.CONTAINER_NOT_FOUND.equals(e.getErrorCode());
  }

  /**
   * A conditional request found the blob elsewhere than expected: {@code If-Match} or {@code
   * If-None-Match} failed (412, ConditionNotMet), or a create found a blob there (409,
   * BlobAlreadyExists).
   */
  static boolean isConditionFailed(BlobStorageException e) {
    BlobErrorCode code = e.getErrorCode();
    return e.getStatusCode() == 412
        || BlobErrorCode.CONDITION_NOT_MET.equals(code)
        || BlobErrorCode.BLOB_ALREADY_EXISTS.equals(code);
  }

  /** The status and error code, and nothing of the request. */
  static String describe(BlobStorageException e) {
    BlobErrorCode code = e.getErrorCode();
    return "status " + e.getStatusCode() + (code == null ? "" : " (" + code + ")");
  }
}
