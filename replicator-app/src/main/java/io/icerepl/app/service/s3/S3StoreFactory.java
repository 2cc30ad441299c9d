package io.icerepl.app.service.s3;

import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;

/**
 * Serves {@code s3://} locations from the source or target S3 store and local paths from the
 * local file system, so one service can replicate S3 to S3 and (for tests and demos) files.
 */
public final class S3StoreFactory implements StoreFactory {
  private final S3ObjectStore source;
  private final S3ObjectStore target;
  private final LocalObjectStore local = new LocalObjectStore();

  public S3StoreFactory(S3ObjectStore source, S3ObjectStore target) {
    this.source = source;
    this.target = target;
  }

  @Override
  public ObjectStore sourceStore(String location) {
    return isS3(location) ? source : local(location);
  }

  @Override
  public ObjectStore targetStore(String location) {
    return isS3(location) ? target : local(location);
  }

  private ObjectStore local(String location) {
    if (location.startsWith("file:") || location.startsWith("/")) {
      return local;
    }
    throw new IllegalArgumentException(
        "Cannot open a store for " + location + ": only s3://, file: and absolute paths are served");
  }

  private static boolean isS3(String location) {
    return location.startsWith("s3://") || location.startsWith("s3a://") || location.startsWith("s3n://");
  }
}
