package io.icerepl.copier.s3;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Runs S3 calls through {@link S3Resilience} and turns what fails into IOExceptions naming the
 * path.
 */
final class S3Calls {
  private final S3Resilience resilience;

  S3Calls(S3Resilience resilience) {
    this.resilience = resilience;
  }

  <T> T run(String verb, String path, S3Location at, Supplier<T> call) throws IOException {
    try {
      return resilience.call(at.bucket(), at.key(), () -> unwrapped(call));
    } catch (SdkException e) {
      throw translate(verb, path, e);
    }
  }

  /** The transfer manager's futures fail with a CompletionException around the S3 error. */
  private static <T> T unwrapped(Supplier<T> call) {
    try {
      return call.get();
    } catch (CompletionException e) {
      if (e.getCause() instanceof SdkException cause) {
        throw cause;
      }
      throw e;
    }
  }

  static IOException translate(String verb, String path, SdkException e) {
    if (e instanceof S3Exception s3) {
      int status = s3.statusCode();
      String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
      if (status == 404) {
        NoSuchFileException missing =
            new NoSuchFileException(path, null, code == null ? "not found" : code);
        missing.initCause(e);
        return missing;
      }
      if (status == 403) {
        return new IOException(
            "Cannot "
                + verb
                + " "
                + path
                + ": access denied"
                + (code == null ? "" : " (" + code + ")"),
            e);
      }
      return new IOException(
          "Cannot "
              + verb
              + " "
              + path
              + ": S3 answered "
              + status
              + (code == null ? "" : " " + code),
          e);
    }
    if (e.getMessage() != null && e.getMessage().startsWith("Unable to load credentials")) {
      // the SDK's message lists every provider of its chain and why each failed
      return new IOException(
          "Cannot "
              + verb
              + " "
              + path
              + ": no AWS credentials found (environment variables, profile, web identity,"
              + " container or instance role)",
          e);
    }
    return new IOException("Cannot " + verb + " " + path + ": " + e.getMessage(), e);
  }

  /** Whether {@code e} is an S3 answer with one of {@code statuses}. */
  static boolean hasStatus(Throwable e, int... statuses) {
    Throwable cause = e instanceof IOException ? e.getCause() : e;
    if (cause instanceof S3Exception s3) {
      for (int status : statuses) {
        if (s3.statusCode() == status) {
          return true;
        }
      }
    }
    return false;
  }
}
