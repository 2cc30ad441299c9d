package io.icerepl.copier.s3;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStore.ObjectVersion;
import io.icerepl.copier.store.ObjectStore.VersionedObject;
import io.icerepl.copier.store.ObjectStore.Writer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The conditional writes of {@link S3ObjectStore}: a PUT with {@code If-None-Match: *} that creates
 * an object only if absent, and one with {@code If-Match} that replaces it only while it is the
 * version read, and a DELETE with {@code If-Match} that removes it only while it is. A retry after
 * a lost answer may meet its own first attempt: where the object holds exactly what was sent, that
 * write is taken as this one.
 */
record S3ConditionalWrites(
    S3Client client, S3Calls calls, S3StoreSettings settings, ObjectStore store) {

  /** The store itself, which reads an object back as {@link ObjectStore#open} does. */
  boolean createIfAbsent(String path, byte[] content) throws IOException {
    return create(
        path, () -> RequestBody.fromBytes(content), () -> Arrays.equals(content, readAll(path)));
  }

  /**
   * As {@link #createIfAbsent(String, byte[])}, from a temporary file once the content outgrows the
   * memory buffer: the metadata file of a long history is not held whole in heap to publish it. One
   * conditional PUT either way (up to 5 GiB, far above any metadata file's limit).
   */
  boolean createIfAbsent(String path, Writer writer) throws IOException {
    WriteBuffer buffer = new WriteBuffer(settings.memoryBufferBytes());
    try {
      try (buffer) {
        writer.writeTo(buffer);
      }
      byte[] content = buffer.bytes();
      if (content != null) {
        return createIfAbsent(path, content);
      }
      return create(
          path,
          () -> RequestBody.fromFile(buffer.file()),
          () -> {
            try (InputStream stored = store.open(path);
                InputStream written = buffer.openInput()) {
              return sameBytes(stored, written);
            }
          });
    } finally {
      buffer.discard();
    }
  }

  /** Reads the object as it is; a retried create compares it with what it sent. */
  @FunctionalInterface
  private interface StoredCheck {
    boolean holdsWhatWasSent() throws IOException;
  }

  private boolean create(String path, Supplier<RequestBody> body, StoredCheck sameAsSent)
      throws IOException {
    S3Location at = S3Location.parse(path);
    AtomicInteger attempts = new AtomicInteger();
    try {
      calls.run(
          "create",
          path,
          at,
          () -> {
            attempts.incrementAndGet();
            return client.putObject(
                b -> b.bucket(at.bucket()).key(at.key()).ifNoneMatch("*"), body.get());
          });
      return true;
    } catch (IOException e) {
      if (!S3Calls.hasStatus(e, 412, 409)) {
        throw e;
      }
      // A retry after a lost answer finds the object its own first attempt created. Equal bytes
      // mean that, or a writer that wrote the same thing: either way the object is as intended.
      return attempts.get() > 1 && sameAsSent.holdsWhatWasSent();
    }
  }

  Optional<VersionedObject> readVersioned(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      ResponseBytes<GetObjectResponse> bytes =
          calls.run(
              "read",
              path,
              at,
              () -> client.getObjectAsBytes(b -> b.bucket(at.bucket()).key(at.key())));
      return Optional.of(
          new VersionedObject(bytes.asByteArray(), new ObjectVersion(bytes.response().eTag())));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * One PUT with {@code If-Match} on the expected ETag, or {@code If-None-Match: *} when none is
   * expected: S3 refuses it (412, or 404 when the object is gone) once another writer replaced the
   * object, however long this one waited before sending it.
   */
  Optional<ObjectVersion> replaceIf(String path, Optional<ObjectVersion> expected, byte[] content)
      throws IOException {
    S3Location at = S3Location.parse(path);
    AtomicInteger attempts = new AtomicInteger();
    try {
      String etag =
          calls
              .run(
                  "replace",
                  path,
                  at,
                  () -> {
                    attempts.incrementAndGet();
                    return client.putObject(
                        b -> {
                          b.bucket(at.bucket()).key(at.key());
                          if (expected.isPresent()) {
                            b.ifMatch(expected.get().tag());
                          } else {
                            b.ifNoneMatch("*");
                          }
                        },
                        RequestBody.fromBytes(content));
                  })
              .eTag();
      return Optional.of(new ObjectVersion(etag));
    } catch (NoSuchFileException e) {
      return ownRetried(path, content, attempts.get());
    } catch (IOException e) {
      if (!S3Calls.hasStatus(e, 412, 409)) {
        throw e;
      }
      return ownRetried(path, content, attempts.get());
    }
  }

  /**
   * One DeleteObject with {@code If-Match} on the expected ETag: S3 refuses it (412, or 404 when
   * the object is gone) once another writer replaced or removed the object. A retry after a lost
   * answer meets the object its first attempt deleted as gone, and answers false like any gone
   * object.
   */
  boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      calls.run(
          "delete",
          path,
          at,
          () ->
              client.deleteObject(
                  b -> b.bucket(at.bucket()).key(at.key()).ifMatch(expected.tag())));
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      if (S3Calls.hasStatus(e, 412, 409)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * A refused conditional PUT: after a retry it may have met its own first attempt, whose answer
   * was lost. The object then holds exactly what was sent, and that write is taken as this one.
   */
  private Optional<ObjectVersion> ownRetried(String path, byte[] sent, int attempts)
      throws IOException {
    if (attempts < 2) {
      return Optional.empty();
    }
    return readVersioned(path)
        .filter(now -> Arrays.equals(now.content(), sent))
        .map(VersionedObject::version);
  }

  private static boolean sameBytes(InputStream a, InputStream b) throws IOException {
    byte[] left = new byte[64 * 1024];
    byte[] right = new byte[left.length];
    while (true) {
      int n = a.readNBytes(left, 0, left.length);
      if (b.readNBytes(right, 0, n) != n || (n < left.length && b.read() != -1)) {
        return false;
      }
      if (!Arrays.equals(left, 0, n, right, 0, n)) {
        return false;
      }
      if (n < left.length) {
        return true;
      }
    }
  }

  private byte[] readAll(String path) throws IOException {
    try (InputStream in = store.open(path)) {
      return in.readAllBytes();
    }
  }
}
