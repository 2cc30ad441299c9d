package io.icerepl.app.cli;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where the command's locations live: local paths, or {@code s3://} with a region and optional
 * endpoint per side. S3 credentials come from the default chain (environment, profile, role), never
 * from the command line.
 */
final class StoreOptions implements AutoCloseable {
  @Option(names = "--endpoint", paramLabel = "<url>",
      description = "S3 endpoint for both sides (LocalStack, MinIO, ...); default: AWS.")
  URI endpoint;

  @Option(names = "--source-endpoint", paramLabel = "<url>", description = "S3 endpoint of the source side.")
  URI sourceEndpoint;

  @Option(names = "--target-endpoint", paramLabel = "<url>", description = "S3 endpoint of the target side.")
  URI targetEndpoint;

  @Option(names = "--region", paramLabel = "<region>", description = "S3 region of both sides (default: ${DEFAULT-VALUE}).")
  String region = "us-east-1";

  @Option(names = "--source-region", paramLabel = "<region>", description = "S3 region of the source side.")
  String sourceRegion;

  @Option(names = "--target-region", paramLabel = "<region>", description = "S3 region of the target side.")
  String targetRegion;

  @Option(names = "--path-style", description = "Path-style S3 addressing (most S3-compatible servers need it).")
  boolean pathStyle;

  @Option(names = "--lock-prefix", paramLabel = "<prefix>",
      description = "Key prefix of the table leases in the target bucket; the service's replicator.s3.lock-prefix "
          + "(default: ${DEFAULT-VALUE}), so that the command and the service never run on one table at once.")
  String lockPrefix = ReplicaLayout.DEFAULT_LOCK_PREFIX;

  private final List<S3ObjectStore> opened = new ArrayList<>();

  ObjectStore source(String location) {
    return store(location, sourceEndpoint, sourceRegion);
  }

  ObjectStore target(String location) {
    return store(location, targetEndpoint, targetRegion);
  }

  private ObjectStore store(String location, URI sideEndpoint, String sideRegion) {
    if (!(location.startsWith("s3://") || location.startsWith("s3a://") || location.startsWith("s3n://"))) {
      return new LocalObjectStore();
    }
    URI uri = sideEndpoint != null ? sideEndpoint : endpoint;
    S3Endpoint s3 =
        new S3Endpoint(Optional.ofNullable(uri), sideRegion != null ? sideRegion : region, Optional.empty(), Optional.empty(),
            pathStyle);
    S3StoreSettings settings =
        S3StoreSettings.defaults(ManagementFactory.getRuntimeMXBean().getName()).withLockPrefix(lockPrefix);
    S3ObjectStore store = S3ObjectStore.create(s3, settings, S3Resilience.defaults());
    opened.add(store);
    return store;
  }

  @Override
  public void close() {
    opened.forEach(S3ObjectStore::close);
  }
}
