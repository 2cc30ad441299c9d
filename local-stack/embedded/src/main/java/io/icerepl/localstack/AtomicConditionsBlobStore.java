package io.icerepl.localstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.gaul.s3proxy.S3ErrorCode;
import org.gaul.s3proxy.S3ProxyException;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * Makes {@code If-Match} / {@code If-None-Match} writes atomic, as S3 evaluates them. s3proxy
 * checks an {@code If-Match} PUT by reading the object's metadata and then puts, so two writers
 * expecting the same ETag can both pass the check and both land. Here every write of a key (put,
 * copy to it, multipart completion, delete) runs in one critical section per key, and a conditional
 * one checks its condition inside it, against the object as it is when the write lands.
 */
final class AtomicConditionsBlobStore extends ForwardingBlobStore {
  private static final int STRIPES = 256;

  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  AtomicConditionsBlobStore(BlobStore delegate) {
    super(delegate);
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /**
   * A conditional put's body is read whole first, outside the key's lock, and only its check and
   * its write are made under it: a body still arriving (or a client that stopped sending one) never
   * holds the lock that other writers of the key wait on. An unconditional put takes no lock, as
   * nothing is checked for it.
   */
  @Override
  public PutObjectResponse putBlob(PutObjectRequest request, InputStream payload) {
    if (request.ifMatch() == null && request.ifNoneMatch() == null) {
      return super.putBlob(request, payload);
    }
    Path body = spool(payload);
    try {
      return underLock(
          request.bucket(),
          request.key(),
          () -> {
            checkCondition(
                request.bucket(), request.key(), request.ifMatch(), request.ifNoneMatch());
            try (InputStream spooled = Files.newInputStream(body)) {
              return super.putBlob(request, spooled);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } finally {
      try {
        Files.deleteIfExists(body);
      } catch (IOException ignored) {
        // a temporary file of a test server: the OS's temporary folder is cleaned anyway
      }
    }
  }

  private static Path spool(InputStream payload) {
    try {
      Path body = Files.createTempFile("embedded-s3-put-", ".body");
      Files.copy(payload, body, StandardCopyOption.REPLACE_EXISTING);
      return body;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public CopyObjectResponse copyBlob(CopyObjectRequest request) {
    return underLock(
        request.destinationBucket(), request.destinationKey(), () -> super.copyBlob(request));
  }

  @Override
  public CompleteMultipartUploadResponse completeMultipartUpload(
      MultipartUpload upload, CompleteMultipartUploadRequest request) {
    return underLock(
        upload.containerName(),
        upload.blobName(),
        () -> {
          checkCondition(
              upload.containerName(), upload.blobName(), request.ifMatch(), request.ifNoneMatch());
          return super.completeMultipartUpload(upload, request);
        });
  }

  /** The store checks a delete's own {@code If-Match}; the lock keeps writes out meanwhile. */
  @Override
  public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
    return underLock(request.bucket(), request.key(), () -> super.removeBlob(request));
  }

  /** What S3 answers: 404 for an {@code If-Match} on no object, 412 for any other miss. */
  private void checkCondition(String bucket, String key, String ifMatch, String ifNoneMatch) {
    if (ifMatch == null && ifNoneMatch == null) {
      return;
    }
    HeadObjectResponse current = delegate().blobMetadataIfPresent(bucket, key);
    if (ifMatch != null) {
      if (current == null) {
        throw new S3ProxyException(S3ErrorCode.NO_SUCH_KEY);
      }
      if (!"*".equals(ifMatch) && !sameTag(ifMatch, current.eTag())) {
        throw new S3ProxyException(S3ErrorCode.PRECONDITION_FAILED);
      }
    }
    if (ifNoneMatch != null
        && current != null
        && ("*".equals(ifNoneMatch) || sameTag(ifNoneMatch, current.eTag()))) {
      throw new S3ProxyException(S3ErrorCode.PRECONDITION_FAILED);
    }
  }

  private static boolean sameTag(String condition, String etag) {
    return etag != null && unquoted(condition).equals(unquoted(etag));
  }

  private static String unquoted(String etag) {
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
        ? etag.substring(1, etag.length() - 1)
        : etag;
  }

  private <T> T underLock(String bucket, String key, Supplier<T> write) {
    ReentrantLock lock = locks[Math.floorMod((bucket + '/' + key).hashCode(), STRIPES)];
    lock.lock();
    try {
      return write.get();
    } finally {
      lock.unlock();
    }
  }
}
