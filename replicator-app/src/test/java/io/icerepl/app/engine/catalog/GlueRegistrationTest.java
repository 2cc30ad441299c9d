package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.ReplicaRegistrar.Registration;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.merge.ReplicaProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.GetTableRequest;

/**
 * A replica registered in AWS Glue and moved forward with Glue's optimistic lock. Runs only where
 * AWS credentials and a Glue database to write to are given ({@value #DATABASE_VARIABLE}); the
 * table it registers there is dropped afterwards, its files are not touched.
 */
class GlueRegistrationTest {
  private static final String DATABASE_VARIABLE = "ICEREPL_GLUE_TEST_DATABASE";

  @TempDir Path dir;

  @Test
  void theGlueTableFollowsTheReplicaAndIsMarkedReadOnly() throws Exception {
    String database = System.getenv(DATABASE_VARIABLE);
    Assumptions.assumeTrue(
        database != null && hasAwsCredentials(),
        "needs AWS credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE or ~/.aws/credentials) and "
            + DATABASE_VARIABLE
            + " naming a Glue database to register a test table in");
    TableIdentifier id = TableIdentifier.of(database, "replica_" + System.nanoTime());
    CatalogSpec spec =
        new CatalogSpec(
            "glue-test", Map.of("type", "glue", "warehouse", dir.resolve("wh").toUri().toString()));
    Catalog catalog = IcebergCatalogs.open(spec);
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try (GlueClient glue = GlueClient.create();
        CatalogClients clients = new CatalogClients()) {
      ReplicaRegistrar registrar =
          CatalogRegistrars.forCatalog(spec, catalog, id, new LocalObjectStore(), clients);
      TableReplicator replicator =
          TableReplicator.builder(
                  new LocalObjectStore(),
                  new LocalObjectStore(),
                  executor,
                  ReplicationOptions.defaults())
              .clock(Clock.systemUTC())
              .progress(CopyProgress.Listener.NONE)
              .catalogs(new TableCatalogs(Optional.empty(), Optional.of(registrar)))
              .build();
      ScenarioTable source =
          ScenarioTable.create(
              "GLUE",
              dir.resolve("source").toString(),
              Scenario.SCHEMA,
              PartitionSpec.unpartitioned(),
              null,
              Map.of(TableProperties.FORMAT_VERSION, "2"));
      String replica = dir.resolve("replica").toUri().toString();

      source.append(source.row(1, "a", "x"));
      String v1 =
          replicator
              .replicateIfChanged(source.location(), replica)
              .heads()
              .replica()
              .orElseThrow()
              .file();
      source.append(source.row(2, "b", "y"));
      String v2 =
          replicator
              .replicateIfChanged(source.location(), replica)
              .heads()
              .replica()
              .orElseThrow()
              .file();

      Map<String, String> parameters =
          glue.getTable(GetTableRequest.builder().databaseName(database).name(id.name()).build())
              .table()
              .parameters();
      assertThat(parameters)
          .containsEntry("metadata_location", v2)
          .containsEntry("previous_metadata_location", v1)
          .containsEntry(ReplicaProperties.READ_ONLY, "true");
      assertThat(registrar.register(replica, v1)).isEqualTo(Registration.UNCHANGED);
      assertThat(catalog.loadTable(id).currentSnapshot().snapshotId())
          .isEqualTo(source.table().currentSnapshot().snapshotId());
    } finally {
      catalog.dropTable(id, false);
      executor.shutdownNow();
    }
  }

  private static boolean hasAwsCredentials() {
    return System.getenv("AWS_ACCESS_KEY_ID") != null
        || System.getenv("AWS_PROFILE") != null
        || Files.exists(Path.of(System.getProperty("user.home"), ".aws", "credentials"));
  }
}
