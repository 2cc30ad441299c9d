package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Source and replica in different regions: on two S3 endpoints (two embedded servers, one per
 * region) the files are streamed, on AWS they are copied inside S3 across regions. Either way a
 * real Iceberg table replicates and reads back the same at every snapshot, timestamp and ref.
 */
class CrossRegionReplicationTest {
  // the test's writer is the table's only writer: no losing writer's file to wait out
  private static final ReplicationOptions ONLY_WRITER =
      new ReplicationOptions(
          java.util.List.of(),
          false,
          ReplicationOptions.defaults().maxMetadataBytes(),
          8,
          java.time.Duration.ZERO);

  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()));

  @Test
  void aTableOnAnotherEndpointAndRegionIsStreamedAndReadsBackTheSame() throws Exception {
    try (EmbeddedS3 west = EmbeddedS3.start();
        EmbeddedS3 europe = EmbeddedS3.start()) {
      west.createBucket("source");
      europe.createBucket("replica");
      S3Endpoint sourceSide = embedded(west, "us-west-2");
      S3Endpoint targetSide = embedded(europe, "eu-west-1");
      try (S3Warehouse warehouse =
              new S3Warehouse(
                  "s3://source/warehouse",
                  west.endpoint(),
                  "us-west-2",
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY);
          S3FileIO replicaIo = fileIo(europe.endpoint(), "eu-west-1")) {
        Table table = writeTable(warehouse);
        Operations targetOperations = new Operations();

        replicate(
            sourceSide,
            targetSide,
            targetOperations,
            table.location(),
            "s3://replica/warehouse/ns/orders");

        // a CopyObject on the target endpoint could not even see the source bucket
        assertThat(targetOperations.names())
            .contains("PutObject")
            .doesNotContain("CopyObject", "UploadPartCopy");
        assertReadsTheSame(table, replicaIo, "s3://replica/warehouse/ns/orders");
      }
    }
  }

  /**
   * Set ICEREPL_LIVE_SOURCE and ICEREPL_LIVE_TARGET to {@code s3://bucket/prefix} locations in two
   * regions (ICEREPL_LIVE_SOURCE_REGION, ICEREPL_LIVE_TARGET_REGION) with credentials in the
   * default chain. The test writes under a fresh prefix on both and removes it afterwards.
   */
  @Test
  void onAwsATableInAnotherRegionIsCopiedInsideS3AndReadsBackTheSame() throws Exception {
    String source = System.getenv("ICEREPL_LIVE_SOURCE");
    String target = System.getenv("ICEREPL_LIVE_TARGET");
    String sourceRegion = System.getenv("ICEREPL_LIVE_SOURCE_REGION");
    String targetRegion = System.getenv("ICEREPL_LIVE_TARGET_REGION");
    Assumptions.assumeTrue(
        source != null && target != null && sourceRegion != null && targetRegion != null,
        "live two-region test skipped: ICEREPL_LIVE_SOURCE, ICEREPL_LIVE_TARGET and their _REGION are not set");
    Assumptions.assumeTrue(
        hasAwsCredentials(),
        "live two-region test skipped: no AWS credentials in the default chain");
    Assumptions.assumeFalse(
        sourceRegion.equals(targetRegion),
        "live two-region test skipped: both regions are " + sourceRegion);

    String run = "icerepl-live-" + UUID.randomUUID();
    String sourceWarehouse = trimSlash(source) + "/" + run;
    String replicaLocation = trimSlash(target) + "/" + run + "/ns/orders";
    Operations targetOperations = new Operations();
    try (S3Warehouse warehouse = new S3Warehouse(sourceWarehouse, null, sourceRegion, null, null);
        S3FileIO replicaIo = fileIo(null, targetRegion)) {
      try {
        Table table = writeTable(warehouse);
        replicate(
            S3Endpoint.aws(sourceRegion),
            S3Endpoint.aws(targetRegion),
            targetOperations,
            table.location(),
            replicaLocation);
        assertThat(targetOperations.names()).contains("CopyObject");
        assertReadsTheSame(table, replicaIo, replicaLocation);
      } finally {
        deleteUnder(sourceRegion, sourceWarehouse);
        deleteUnder(targetRegion, trimSlash(target) + "/" + run);
      }
    }
  }

  private static Table writeTable(S3Warehouse warehouse) {
    Table table =
        warehouse.create(
            "ns", "orders", SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    GenericRecord record = GenericRecord.create(SCHEMA);
    for (long i = 0; i < 3; i++) {
      List<Record> rows =
          List.of(
              record.copy(Map.of("id", i, "region", "r" + i)), record.copy(Map.of("id", 10 + i)));
      table.newAppend().appendFile(TableWrites.writeData(table, null, rows)).commit();
      if (i == 0) {
        table.manageSnapshots().createTag("first", table.currentSnapshot().snapshotId()).commit();
      }
    }
    DataFile onBranch = TableWrites.writeData(table, null, List.of(record.copy(Map.of("id", 99L))));
    table.newAppend().appendFile(onBranch).toBranch("audit").commit();
    table.refresh();
    return table;
  }

  private static void replicate(
      S3Endpoint sourceSide,
      S3Endpoint targetSide,
      Operations targetOperations,
      String from,
      String to)
      throws Exception {
    S3StoreSettings settings = S3StoreSettings.defaults("cross-region-test");
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try (S3ObjectStore source =
            S3ObjectStore.create(sourceSide, settings, S3Resilience.defaults());
        S3ObjectStore target =
            S3ObjectStore.create(
                targetSide, settings, S3Resilience.defaults(), List.of(targetOperations))) {
      ReplicationSummary summary =
          TableReplicator.builder(source, target, executor, ONLY_WRITER)
              .clock(Clock.systemUTC())
              .build()
              .replicate(from, to, Optional.empty());
      assertThat(summary.snapshotsAdded()).isEqualTo(4);
    } finally {
      executor.shutdownNow();
    }
  }

  private static void assertReadsTheSame(Table source, FileIO replicaIo, String replicaLocation) {
    Table replica =
        new BaseTable(
            new StaticTableOperations(replicaLocation + "/metadata/v1.metadata.json", replicaIo),
            "r");
    for (Snapshot snapshot : source.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(source, snapshot.snapshotId()));
      assertThat(rowsAsOf(replica, snapshot.timestampMillis()))
          .as("as of %s", snapshot.timestampMillis())
          .isEqualTo(rowsAsOf(source, snapshot.timestampMillis()));
    }
    assertThat(replica.refs().keySet()).isEqualTo(source.refs().keySet());
    for (Map.Entry<String, SnapshotRef> ref : source.refs().entrySet()) {
      assertThat(SourceTable.rows(replica, replica.refs().get(ref.getKey()).snapshotId()))
          .as("ref %s", ref.getKey())
          .isEqualTo(SourceTable.rows(source, ref.getValue().snapshotId()));
    }
    List<String> replicaPaths = new ArrayList<>();
    for (Snapshot snapshot : replica.snapshots()) {
      replicaPaths.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(replicaIo)) {
        replicaPaths.add(manifest.path());
        try (CloseableIterable<DataFile> files =
            ManifestFiles.read(manifest, replicaIo, replica.specs()).select(List.of("file_path"))) {
          files.forEach(f -> replicaPaths.add(f.location()));
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }
    assertThat(replicaPaths)
        .isNotEmpty()
        .allSatisfy(p -> assertThat(p).startsWith(replicaLocation + "/"));
  }

  private static List<String> rowsAsOf(Table table, long timestampMs) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).asOfTime(timestampMs).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  private static S3Endpoint embedded(EmbeddedS3 s3, String region) {
    return new S3Endpoint(
        Optional.of(s3.endpoint()),
        region,
        Optional.of(EmbeddedS3.ACCESS_KEY),
        Optional.of(EmbeddedS3.SECRET_KEY),
        true);
  }

  private static S3FileIO fileIo(URI endpoint, String region) {
    S3FileIO io = new S3FileIO();
    Map<String, String> properties = new java.util.HashMap<>(Map.of("client.region", region));
    if (endpoint != null) {
      properties.putAll(
          Map.of(
              "s3.endpoint",
              endpoint.toString(),
              "s3.path-style-access",
              "true",
              "s3.access-key-id",
              EmbeddedS3.ACCESS_KEY,
              "s3.secret-access-key",
              EmbeddedS3.SECRET_KEY));
    }
    io.initialize(properties);
    return io;
  }

  private static boolean hasAwsCredentials() {
    try (DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build()) {
      chain.resolveCredentials();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String trimSlash(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }

  private static void deleteUnder(String region, String location) {
    URI uri = URI.create(location);
    String prefix = uri.getPath().substring(1) + "/";
    try (S3Client s3 =
        S3Client.builder().region(software.amazon.awssdk.regions.Region.of(region)).build()) {
      s3.listObjectsV2Paginator(b -> b.bucket(uri.getHost()).prefix(prefix))
          .contents()
          .forEach(o -> s3.deleteObject(b -> b.bucket(uri.getHost()).key(o.key())));
    }
  }

  /** Records the operation of every request one side's clients send. */
  private static final class Operations implements ExecutionInterceptor {
    private final List<String> names = new CopyOnWriteArrayList<>();

    List<String> names() {
      return List.copyOf(names);
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      names.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
    }
  }
}
