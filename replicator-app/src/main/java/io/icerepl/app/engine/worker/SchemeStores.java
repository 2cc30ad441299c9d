package io.icerepl.app.engine.worker;

import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * The stores of both sides, chosen by a location's scheme. This is the one table of which scheme
 * goes where ({@code s3://}, {@code s3a://}, {@code s3n://} to that side's S3 store; {@code file:}
 * and plain paths, absolute or relative, to the local file system; nothing else) and the one place
 * the S3 stores are built, for the command line and the service alike. An S3 store is opened on its
 * first use, so a local run builds no S3 client; {@link #close} closes what was opened.
 */
public final class SchemeStores implements StoreFactory, AutoCloseable {
  private static final List<String> S3_SCHEMES = List.of("s3://", "s3a://", "s3n://");

  /**
   * How both sides reach S3.
   *
   * @param interceptors SDK interceptors on both sides (request tracing; tests inject faults with
   *     one)
   */
  public record S3Access(
      S3Endpoint source,
      S3Endpoint target,
      S3StoreSettings settings,
      S3Resilience resilience,
      List<ExecutionInterceptor> interceptors) {
    public S3Access {
      interceptors = List.copyOf(interceptors);
    }
  }

  private final LocalObjectStore local = new LocalObjectStore();
  private final Optional<S3Access> s3;
  private S3ObjectStore sourceS3;
  private S3ObjectStore targetS3;

  private SchemeStores(Optional<S3Access> s3) {
    this.s3 = s3;
  }

  /** Local files only: an {@code s3://} location is refused. */
  public static SchemeStores local() {
    return new SchemeStores(Optional.empty());
  }

  public static SchemeStores withS3(S3Access s3) {
    return new SchemeStores(Optional.of(s3));
  }

  /**
   * Store settings whose leases live under {@code lockPrefix} and name this process as their owner,
   * so an operator can tell who holds a table.
   */
  public static S3StoreSettings leaseSettings(String lockPrefix, Duration lockTtl, Clock clock) {
    String owner = ManagementFactory.getRuntimeMXBean().getName();
    S3StoreSettings settings = S3StoreSettings.defaults(owner).withLockPrefix(lockPrefix);
    return settings.withLock(settings.lockPrefix(), owner, lockTtl, clock);
  }

  @Override
  public ObjectStore sourceStore(String location) {
    return store("source", location);
  }

  @Override
  public ObjectStore targetStore(String location) {
    return store("target", location);
  }

  private synchronized ObjectStore store(String side, String location) {
    if (S3_SCHEMES.stream().anyMatch(location::startsWith)) {
      S3Access access =
          s3.orElseThrow(
              () ->
                  new IllegalArgumentException(
                      "Cannot open "
                          + side
                          + " store for "
                          + location
                          + ": no S3 access is configured"));
      if (side.equals("source")) {
        sourceS3 = sourceS3 != null ? sourceS3 : open(access, access.source());
        return sourceS3;
      }
      targetS3 = targetS3 != null ? targetS3 : open(access, access.target());
      return targetS3;
    }
    int colon = location.indexOf(':');
    // a plain path, absolute or relative to the working folder, is a local table as a file: URI is
    if (location.startsWith("file:") || colon < 0) {
      return local;
    }
    String scheme = location.substring(0, colon + 1);
    throw new IllegalArgumentException(
        "Cannot open "
            + side
            + " store for "
            + location
            + ": scheme "
            + scheme
            + " is not supported (only s3://, s3a://, s3n://, file: and plain paths)");
  }

  private static S3ObjectStore open(S3Access access, S3Endpoint endpoint) {
    return S3ObjectStore.create(
        endpoint, access.settings(), access.resilience(), access.interceptors());
  }

  @Override
  public synchronized void close() {
    if (sourceS3 != null) {
      sourceS3.close();
    }
    if (targetS3 != null) {
      targetS3.close();
    }
  }
}
