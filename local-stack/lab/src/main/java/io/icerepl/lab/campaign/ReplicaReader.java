package io.icerepl.lab.campaign;

import io.icerepl.merge.merge.ReplicaProperties;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reads a replica the way a reader without a catalog does (Hadoop tables): {@code
 * version-hint.text}, then looks past it for {@code v<N+1>.metadata.json} (a hint is written after
 * its metadata file), then opens that metadata with Iceberg's parser through S3FileIO and scans it
 * with IcebergGenerics. Its S3 clients see no injected faults.
 */
final class ReplicaReader implements AutoCloseable {
  private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.metadata\\.json");

  private final S3Client s3;
  private final S3FileIO io = new S3FileIO();
  private final String bucket;
  private final String metadataPrefix;

  ReplicaReader(
      URI endpoint,
      String region,
      String accessKey,
      String secretKey,
      String bucket,
      String tablePath) {
    this.s3 =
        S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.of(region))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
            .forcePathStyle(true)
            .build();
    io.initialize(
        Map.of(
            "s3.endpoint",
            endpoint.toString(),
            "s3.path-style-access",
            "true",
            "s3.access-key-id",
            accessKey,
            "s3.secret-access-key",
            secretKey,
            "client.region",
            region));
    this.bucket = bucket;
    this.metadataPrefix = tablePath + "/metadata/";
  }

  /** The replica's current metadata file (s3://...), or null while the replica does not exist. */
  String currentMetadataFile() {
    Integer version = null;
    try {
      String hint =
          s3.getObjectAsBytes(b -> b.bucket(bucket).key(metadataPrefix + "version-hint.text"))
              .asString(StandardCharsets.UTF_8)
              .trim();
      version = Integer.parseInt(hint);
    } catch (NoSuchKeyException e) {
      // no hint: list the metadata folder, as HadoopTableOperations does
      List<Integer> versions = new ArrayList<>(versions().keySet());
      if (versions.isEmpty()) {
        return null;
      }
      version = versions.get(versions.size() - 1);
    }
    while (exists(metadataPrefix + "v" + (version + 1) + ".metadata.json")) {
      version++;
    }
    return "s3://" + bucket + "/" + metadataPrefix + "v" + version + ".metadata.json";
  }

  private boolean exists(String key) {
    try {
      s3.headObject(b -> b.bucket(bucket).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** Every replica metadata file by version. */
  TreeMap<Integer, String> versions() {
    TreeMap<Integer, String> result = new TreeMap<>();
    s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(metadataPrefix))
        .contents()
        .forEach(
            (S3Object o) -> {
              String name = o.key().substring(metadataPrefix.length());
              Matcher m = VERSION.matcher(name);
              if (m.matches()) {
                result.put(Integer.parseInt(m.group(1)), "s3://" + bucket + "/" + o.key());
              }
            });
    return result;
  }

  /** The source metadata file a replica metadata file holds (its name, as the merge records it). */
  String sourceFileOf(String replicaMetadataFile) {
    return TableMetadataParser.read(io, replicaMetadataFile)
        .properties()
        .get(ReplicaProperties.SOURCE_METADATA_FILE);
  }

  /**
   * Opens the current replica and reads its current snapshot; returns rows read, or -1 if no
   * replica yet.
   */
  long openAndScanCurrent() {
    String location = currentMetadataFile();
    if (location == null) {
      return -1;
    }
    TableMetadata metadata = TableMetadataParser.read(io, location);
    Table table = new BaseTable(new StaticTableOperations(location, io), "replica");
    Snapshot current = metadata.currentSnapshot();
    if (current == null) {
      return 0;
    }
    long count = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(current.snapshotId()).build()) {
      for (Record ignored : records) {
        count++;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return count;
  }

  /**
   * Whether the replica's current metadata holds the source metadata file {@code head}; false on
   * any error.
   */
  boolean holdsHead(String head) {
    try {
      String current = currentMetadataFile();
      return current != null && fileName(head).equals(sourceFileOf(current));
    } catch (RuntimeException e) {
      return false;
    }
  }

  Table table(String metadataFile) {
    return new BaseTable(new StaticTableOperations(metadataFile, io), "replica");
  }

  /**
   * Compares every recorded source snapshot with the replica; returns {compared, missing,
   * mismatched}.
   */
  long[] compare(
      String replicaMetadataFile, Map<Long, List<String>> recorded, List<String> problems) {
    Table replica = table(replicaMetadataFile);
    long compared = 0;
    long missing = 0;
    long mismatched = 0;
    for (Map.Entry<Long, List<String>> e : recorded.entrySet()) {
      compared++;
      if (replica.snapshot(e.getKey()) == null) {
        missing++;
        problems.add("snapshot " + e.getKey() + " missing on the replica");
        continue;
      }
      List<String> rows = CampaignSource.rows(replica, e.getKey());
      if (!rows.equals(e.getValue())) {
        mismatched++;
        problems.add(
            "snapshot "
                + e.getKey()
                + ": replica reads "
                + rows.size()
                + " rows, source read "
                + e.getValue().size());
      }
    }
    return new long[] {compared, missing, mismatched};
  }

  /**
   * Differences of the replica's refs and current snapshot at {@code replicaMetadataFile} from the
   * source's.
   */
  List<String> refProblems(
      String replicaMetadataFile, Map<String, Long> sourceRefs, Long sourceCurrent) {
    TableMetadata metadata = TableMetadataParser.read(io, replicaMetadataFile);
    Map<String, Long> refs = new TreeMap<>();
    metadata.refs().forEach((name, ref) -> refs.put(name, ref.snapshotId()));
    Long current =
        metadata.currentSnapshot() == null ? null : metadata.currentSnapshot().snapshotId();
    return Verdict.refProblems(sourceRefs, sourceCurrent, refs, current);
  }

  static String fileName(String location) {
    return location.substring(location.lastIndexOf('/') + 1);
  }

  @Override
  public void close() {
    io.close();
    s3.close();
  }
}
