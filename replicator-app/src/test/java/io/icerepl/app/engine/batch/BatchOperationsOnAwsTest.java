package io.icerepl.app.engine.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.copier.batch.BatchJobs;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.model.TableMetadataParser;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * A real S3 Batch Operations job on AWS, run only where credentials and these variables are set
 * (skipped, and reported skipped, everywhere else): {@code ICEREPL_BATCH_OPERATIONS_ROLE} (the role
 * the job assumes, e.g. the stack's {@code BatchOperationsRoleArn}), {@code
 * ICEREPL_BATCH_OPERATIONS_SOURCE} and {@code ICEREPL_BATCH_OPERATIONS_TARGET} ({@code
 * s3://bucket/prefix} the test may write under, the target's key prefix ending with the source's)
 * and {@code AWS_REGION} (the target bucket's). A job takes minutes to start.
 */
@EnabledIfEnvironmentVariable(named = "ICEREPL_BATCH_OPERATIONS_ROLE", matches = "arn:.+")
class BatchOperationsOnAwsTest {

  @Test
  void aRealJobCopiesTheBackfillsDataFiles() throws Exception {
    String region = System.getenv().getOrDefault("AWS_REGION", "us-east-1");
    String run = UUID.randomUUID().toString();
    String warehouse = System.getenv("ICEREPL_BATCH_OPERATIONS_SOURCE") + "/" + run;
    String target = System.getenv("ICEREPL_BATCH_OPERATIONS_TARGET") + "/" + run + "/ns/t";
    ExecutorService executor = Executors.newFixedThreadPool(4);
    List<JobProgress> heard = new ArrayList<>();
    try (S3Warehouse writer = new S3Warehouse(warehouse, null, region, null, null);
        S3ObjectStore source =
            S3ObjectStore.create(
                S3Endpoint.aws(region), S3StoreSettings.defaults("test"), S3Resilience.defaults());
        S3ObjectStore replica =
            S3ObjectStore.create(
                S3Endpoint.aws(region), S3StoreSettings.defaults("test"), S3Resilience.defaults());
        BatchOperations batch =
            new BatchOperations(
                new BatchOperationsOptions(
                    Optional.of(System.getenv("ICEREPL_BATCH_OPERATIONS_ROLE")),
                    Optional.empty(),
                    1,
                    1L << 40,
                    Duration.ofSeconds(10),
                    10),
                account -> new BatchJobs(BatchJobs.client(region, Optional.empty()), account));
        S3FileIO io = new S3FileIO()) {
      Table table =
          writer.create(
              "ns",
              "t",
              SourceTable.SCHEMA,
              PartitionSpec.builderFor(SourceTable.SCHEMA).identity("category").build(),
              Map.of("format-version", "2"));
      SourceTable rows = SourceTable.of(table, 1);
      rows.append("a", 3);
      rows.append("b c", 2);

      TableReplicator.builder(
              source,
              replica,
              executor,
              new ReplicationOptions(
                  List.of(),
                  false,
                  TableMetadataParser.DEFAULT_MAX_METADATA_BYTES,
                  4,
                  Duration.ZERO))
          .clock(Clock.systemUTC())
          .progress(CopyProgress.Listener.NONE)
          .catalogs(TableCatalogs.NONE)
          .batchPreCopy(batch.preCopy((t, p) -> heard.add(p)))
          .build()
          .replicate(table.location(), target, Optional.empty());

      assertThat(heard).last().extracting(JobProgress::status).isEqualTo(JobProgress.COMPLETE);
      io.initialize(Map.of("client.region", region));
      String file = ReplicaLayout.metadataFile(target, 1);
      Table copy = new BaseTable(new StaticTableOperations(file, io), file);
      for (Snapshot snapshot : table.snapshots()) {
        assertThat(SourceTable.rows(copy, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
      }
    } finally {
      executor.shutdownNow();
    }
  }
}
