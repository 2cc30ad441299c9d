package io.icerepl.copier.s3;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;

/** The deletion of many objects of {@link S3ObjectStore} in DeleteObjects requests. */
final class S3BatchDelete {
  /** The most keys one DeleteObjects request may name. */
  private static final int MAX_KEYS_PER_DELETE = 1_000;

  private final S3Client client;
  private final S3Calls calls;

  S3BatchDelete(S3Client client, S3Calls calls) {
    this.client = client;
    this.calls = calls;
  }

  /**
   * One DeleteObjects request per run of at most 1,000 keys of one bucket, instead of a
   * DeleteObject per key: an expiry of a large history deletes tens of thousands of files. A key S3
   * could not delete fails the call, naming it and S3's code; the keys of later requests are not
   * touched.
   */
  void deleteAll(List<String> paths) throws IOException {
    int start = 0;
    while (start < paths.size()) {
      String bucket = S3Location.parse(paths.get(start)).bucket();
      List<ObjectIdentifier> keys = new ArrayList<>();
      int end = start;
      while (end < paths.size() && keys.size() < MAX_KEYS_PER_DELETE) {
        S3Location at = S3Location.parse(paths.get(end));
        if (!at.bucket().equals(bucket)) {
          break;
        }
        keys.add(ObjectIdentifier.builder().key(at.key()).build());
        end++;
      }
      String first = paths.get(start);
      DeleteObjectsResponse response =
          calls.run(
              "delete " + keys.size() + " objects from",
              first,
              S3Location.parse(first),
              () ->
                  client.deleteObjects(
                      b -> b.bucket(bucket).delete(d -> d.objects(keys).quiet(true))));
      if (response.hasErrors() && !response.errors().isEmpty()) {
        S3Error error = response.errors().get(0);
        throw new IOException(
            "Cannot delete s3://"
                + bucket
                + "/"
                + error.key()
                + ": S3 answered "
                + error.code()
                + (error.message() == null ? "" : " (" + error.message() + ")")
                + (response.errors().size() > 1
                    ? "; "
                        + (response.errors().size() - 1)
                        + " more key(s) of the same request failed"
                    : ""));
      }
      start = end;
    }
  }
}
