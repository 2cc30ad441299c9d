package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Storage;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.TablePaths;
import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.app.engine.worker.StoreFamily;
import io.icerepl.copier.gcs.GcsObjectStore;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.localstack.PreconditionEnforcingStorage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.gcp.gcs.GCSFileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
  void aReplicaOnGcsReadsLikeTheSourceThroughIcebergsGcsFileIo(Scenario scenario, @TempDir Path dir)
      throws IOException {
    ScenarioTable source = scenario.write(dir);
    String target = "gs://" + BUCKET + "/wh/" + scenario.name().toLowerCase();

    ExecutorService executor = Executors.newFixedThreadPool(4);
    try (SchemeStores stores = stores()) {
      TableReplicator.builder(
              stores.sourceStore(source.location()),
              stores.targetStore(target),
              executor,
              new ReplicationOptions(List.of(), false, 64L << 20, 4, Duration.ZERO))
          .clock(Clock.systemUTC())
          .build()
          .replicate(source.location(), target, Optional.empty());
    } finally {
      executor.shutdownNow();
    }

    String metadataFile =
        target
            + "/metadata/v"
            + read(target + "/metadata/version-hint.text").trim()
            + ".metadata.json";
    Table replica = new BaseTable(new StaticTableOperations(metadataFile, io), "replica");
    List<String> problems =
        new ArrayList<>(new ReplicaVerifier().readProblems(source.expectations(), replica));
    problems.addAll(TablePaths.outside(replica, io, target));
    if (read(metadataFile).contains(source.location())) {
      problems.add(metadataFile + " names the source's location");
    }
    assertThat(problems).as("replica %s", metadataFile).isEmpty();
  }

  /** The service's stores, GCS on the in-process fake. */
  private static SchemeStores stores() {
    S3StoreSettings settings =
        SchemeStores.leaseSettings("_leases", Duration.ofMinutes(2), Clock.systemUTC());
    return SchemeStores.local()
        .with(StoreFamily.GCS, side -> new GcsObjectStore(storage, SchemeStores.leases(settings)));
  }

  private static String read(String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
