package io.icerepl.localstack;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 endpoint on loopback (s3proxy), in memory or on a local folder, for tests and for running
 * the service without an AWS account. It speaks the S3 API the replicator uses, conditional writes
 * included, each checked atomically with its write as S3 does; it sends no bucket notifications.
 */
public final class EmbeddedS3 implements AutoCloseable {
  public static final String ACCESS_KEY = "local";
  public static final String SECRET_KEY = "local-secret";
  public static final Region REGION = Region.US_EAST_1;

  private final S3Proxy proxy;

  private EmbeddedS3(S3Proxy proxy) {
    this.proxy = proxy;
  }

  /** Starts an in-memory S3 on a free loopback port. */
  public static EmbeddedS3 start() {
    return start(new TransientNio2BlobStore(), 0);
  }

  /** Starts an S3 that keeps its buckets under {@code folder}. */
  public static EmbeddedS3 start(Path folder, int port) {
    return start(new FilesystemNio2BlobStore(folder.toAbsolutePath().toString()), port);
  }

  private static EmbeddedS3 start(BlobStore blobStore, int port) {
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(new AtomicConditionsBlobStore(blobStore))
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    try {
      proxy.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!"STARTED".equals(proxy.getState())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Cannot start embedded S3: still " + proxy.getState());
        }
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot start embedded S3: interrupted", e);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start embedded S3: " + e.getMessage(), e);
    }
    return new EmbeddedS3(proxy);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  public void createBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }

  /** A client for this endpoint (path-style addressing, the embedded credentials). */
  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(REGION)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .forcePathStyle(true)
        .build();
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot stop embedded S3: " + e.getMessage(), e);
    }
  }
}
