package io.icerepl.copier.s3;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * One object uploaded in parts from finished, buffered bytes. The object appears only when the
 * upload completes; on any failure the upload is aborted so its parts do not linger (and cost).
 * Each part is its own resilient call, so a throttled part is retried alone.
 */
record MultipartUpload(S3Client client, S3Calls calls, String path, S3Location at) {

  void upload(WriteBuffer content, long partSize) throws IOException {
    long length = content.size();
    String uploadId =
        calls
            .run(
                "start upload of",
                path,
                at,
                () -> client.createMultipartUpload(b -> b.bucket(at.bucket()).key(at.key())))
            .uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      byte[] buffer = new byte[(int) Math.min(partSize, length)];
      try (InputStream in = content.openInput()) {
        for (int number = 1; ; number++) {
          int n = in.readNBytes(buffer, 0, buffer.length);
          if (n == 0) {
            break;
          }
          int partNumber = number;
          // fromBytes copies, so the buffer can take the next part.
          RequestBody body =
              RequestBody.fromBytes(n == buffer.length ? buffer : Arrays.copyOf(buffer, n));
          String etag =
              calls
                  .run(
                      "upload part " + partNumber + " of",
                      path,
                      at,
                      () ->
                          client.uploadPart(
                              b ->
                                  b.bucket(at.bucket())
                                      .key(at.key())
                                      .uploadId(uploadId)
                                      .partNumber(partNumber),
                              body))
                  .eTag();
          parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
        }
      }
      calls.run(
          "complete upload of",
          path,
          at,
          () ->
              client.completeMultipartUpload(
                  b ->
                      b.bucket(at.bucket())
                          .key(at.key())
                          .uploadId(uploadId)
                          .multipartUpload(m -> m.parts(parts))));
    } catch (IOException | RuntimeException e) {
      try {
        calls.run(
            "abort upload of",
            path,
            at,
            () ->
                client.abortMultipartUpload(
                    b -> b.bucket(at.bucket()).key(at.key()).uploadId(uploadId)));
      } catch (IOException | RuntimeException abort) {
        e.addSuppressed(abort);
      }
      throw e;
    }
  }
}
