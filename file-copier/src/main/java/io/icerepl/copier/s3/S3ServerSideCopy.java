package io.icerepl.copier.s3;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

/**
 * A copy inside S3, the bytes never passing through this process: one CopyObject up to the
 * multipart copy threshold, the transfer manager's UploadPartCopy above it (S3 refuses a single
 * CopyObject over 5 GiB).
 */
record S3ServerSideCopy(
    S3Client client, S3TransferManager transferManager, S3Calls calls, S3StoreSettings settings) {

  void copy(S3Location from, S3Location to, String sourcePath, String targetPath, long length)
      throws IOException {
    if (length <= settings.multipartCopyThresholdBytes()) {
      calls.run(
          "copy " + sourcePath + " to",
          targetPath,
          to,
          () ->
              client.copyObject(
                  r ->
                      r.sourceBucket(from.bucket())
                          .sourceKey(from.key())
                          .destinationBucket(to.bucket())
                          .destinationKey(to.key())));
    } else {
      calls.run(
          "copy " + sourcePath + " to",
          targetPath,
          to,
          () ->
              transferManager
                  .copy(
                      c ->
                          c.copyObjectRequest(
                              r ->
                                  r.sourceBucket(from.bucket())
                                      .sourceKey(from.key())
                                      .destinationBucket(to.bucket())
                                      .destinationKey(to.key())))
                  .completionFuture()
                  .join());
    }
  }

  /** CopyObject answers 404 for its source key; the copy's own path would mislead. */
  static NoSuchFileException missingSource(String sourcePath, IOException cause) {
    NoSuchFileException missing =
        new NoSuchFileException(sourcePath, null, "missing at the source");
    missing.initCause(cause);
    return missing;
  }
}
