package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Storage;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.app.engine.worker.StoreFamily;
import io.icerepl.copier.gcs.GcsObjectStore;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.PreconditionEnforcingStorage;
import io.icerepl.localstack.S3Warehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.gcp.gcs.GCSFileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Replicas on Google Cloud Storage: tables written with the Iceberg library, replicated to a {@code
 * gs://} location, then read back through Iceberg's own {@link GCSFileIO} at every snapshot and
 * ref, rows equal to the source's, and every file the replica names under its own location.
 *
 * <p>No GCS server or emulator is reachable here, so the store is the client library's in-process
 * fake (as Iceberg's own GCSFileIO tests use) with GCS's generation preconditions enforced, shared
 * by the replicator and the reader; what the fake does not emulate is in docs/stores/gcs.md.
 */
class GcsReplicaTest {
  private static final String BUCKET = "replica";
  private static Storage storage;
  private static GCSFileIO io;

  @BeforeAll
  static void startFake() {
    // one in-process GCS for the replicator and the reader; it has no buckets to create
    storage = PreconditionEnforcingStorage.inProcess();
    io = new GCSFileIO(() -> storage);
    io.initialize(Map.of());
  }

  @AfterAll
  static void closeIo() {
    io.close();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Scenario.class,
      names = {
        "APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS",
        "ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY",
        "BRANCHES_AND_TAGS",
        "V3_DELETION_VECTORS_AND_ROW_LINEAGE",
        "ORC_DATA_AND_POSITION_DELETES"
      })
  void aReplicaOnGcsReadsLikeTheSourceThroughIcebergsGcsFileIo(
      Scenario scenario, @TempDir Path dir) {
    ScenarioTable source = scenario.write(dir);
    String target = "gs://" + BUCKET + "/wh/" + scenario.name().toLowerCase();

    try (SchemeStores stores = stores()) {
      replicate(stores, source.location(), target);
    }

    assertThat(ReplicaReadBack.problems(io, source.expectations(), source.location(), target))
        .as("replica %s", target)
        .isEmpty();
  }

  @Test
  void aTableOnS3IsReplicatedToGcs() {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse")) {
      s3.createBucket("source");
      ScenarioTable source = S3SourceTables.ordersWithDeletesAndTag(warehouse, "orders");
      String target = "gs://" + BUCKET + "/wh/from-s3/orders";
      S3Endpoint sourceS3 =
          new S3Endpoint(
              Optional.of(s3.endpoint()),
              EmbeddedS3.REGION.id(),
              Optional.of(EmbeddedS3.ACCESS_KEY),
              Optional.of(EmbeddedS3.SECRET_KEY),
              true);
      S3StoreSettings settings =
          SchemeStores.leaseSettings("_leases", Duration.ofMinutes(2), Clock.systemUTC());
      try (SchemeStores stores =
          SchemeStores.withS3(
                  new SchemeStores.S3Access(
                      sourceS3,
                      S3Endpoint.aws(EmbeddedS3.REGION.id()),
                      settings,
                      S3Resilience.defaults(),
                      List.of()))
              .with(
                  StoreFamily.GCS,
                  side -> new GcsObjectStore(storage, SchemeStores.leases(settings)))) {
        replicate(stores, source.location(), target);
      }

      assertThat(ReplicaReadBack.problems(io, source.expectations(), source.location(), target))
          .as("replica %s", target)
          .isEmpty();
    }
  }

  private static void replicate(SchemeStores stores, String source, String target) {
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      TableReplicator.builder(
              stores.sourceStore(source),
              stores.targetStore(target),
              executor,
              new ReplicationOptions(List.of(), false, 64L << 20, 4, Duration.ZERO))
          .clock(Clock.systemUTC())
          .build()
          .replicate(source, target, Optional.empty());
    } finally {
      executor.shutdownNow();
    }
  }

  /** The service's stores, GCS on the in-process fake. */
  private static SchemeStores stores() {
    S3StoreSettings settings =
        SchemeStores.leaseSettings("_leases", Duration.ofMinutes(2), Clock.systemUTC());
    return SchemeStores.local()
        .with(StoreFamily.GCS, side -> new GcsObjectStore(storage, SchemeStores.leases(settings)));
  }
}
