package io.icerepl.copier.publish;

import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.path.TableLocation;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The names of what the replicator writes for a replica: a Hadoop-style table ({@code
 * metadata/v<N>.metadata.json} and {@code metadata/version-hint.text}), so readers open it by path;
 * its state file beside them; and the table leases in the target bucket, outside it (a local store
 * locks with an OS file lock, which is no part of the replica). The folders a replica gives mapped
 * source paths ({@code data/…}, {@code metadata/…}) are named by the merge, in {@link TableLayout}
 * and {@code SourcePrefixes}, because the merge writes them into the metadata and cannot depend on
 * this module.
 */
public final class ReplicaLayout {
  /** Hidden, so no reader takes it for a table file. */
  public static final String STATE_FILE = ".replicator-state.json";

  /**
   * Key prefix of the table leases in a target bucket, shared by the service, the command line and
   * the deployment template so that they exclude each other.
   */
  public static final String DEFAULT_LOCK_PREFIX = ".replicator-locks";

  private ReplicaLayout() {}

  public static String metadataFolder(String location) {
    return TableLayout.metadataFolder(location);
  }

  /** The name of version {@code version}'s metadata file, the highest version being current. */
  public static String metadataFileName(long version) {
    return "v" + version + ".metadata.json";
  }

  /** Path of version {@code version}'s metadata file under a replica location. */
  public static String metadataFile(String location, long version) {
    return TableLayout.join(metadataFolder(location), metadataFileName(version));
  }

  public static String versionHintFile(String location) {
    return TableLayout.join(metadataFolder(location), TableLayout.VERSION_HINT);
  }

  /** The replicator's state of a replica, beside its metadata. */
  public static String stateFile(String location) {
    return TableLayout.join(metadataFolder(location), STATE_FILE);
  }

  /** Folder of S3 Batch Operations copy jobs of a replica, hidden beside its metadata. */
  public static final String BATCH_FOLDER = ".replicator-batch";

  /**
   * The folder of one S3 Batch Operations job of a replica: its CSV manifest, the marker naming the
   * job, and its completion report.
   *
   * @param token the job's client request token
   */
  public static String batchJobFolder(String location, String token) {
    return TableLayout.join(TableLayout.join(metadataFolder(location), BATCH_FOLDER), token);
  }

  /**
   * Key of a table's lease object in the table's bucket: outside the table, so its readers and its
   * retention never see it, and of fixed length whatever the location.
   */
  public static String leaseKey(String lockPrefix, String canonicalLocation) {
    return lockPrefix + "/" + sha256(canonicalLocation);
  }

  /**
   * The lease object of a table at {@code location} in a store whose top folder (bucket, container)
   * is {@code root}: {@code <root>/<lockPrefix>/<sha256 of the canonical location>}, so every
   * spelling of one location takes one lease.
   */
  public static String leaseObject(String root, String lockPrefix, String location) {
    return TableLayout.join(root, leaseKey(lockPrefix, TableLocation.of(location).canonical()));
  }

  /**
   * Leases as the command line takes them when told nothing: under {@link #DEFAULT_LOCK_PREFIX},
   * held for two minutes unless renewed, naming this process.
   */
  public static LeaseLocks.Settings defaultLeases() {
    return new LeaseLocks.Settings(
        DEFAULT_LOCK_PREFIX,
        ManagementFactory.getRuntimeMXBean().getName(),
        Duration.ofMinutes(2),
        Clock.systemUTC());
  }

  private static String sha256(String canonicalLocation) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(canonicalLocation.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
