package io.icerepl.app.engine.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.copier.batch.BatchJobs;
import io.icerepl.copier.batch.JobManifestCsv;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The S3 Batch Operations pre-copy of a backfill, end to end: a table written with the Iceberg
 * library on the embedded S3, the real S3 Control client against a recorded job lifecycle whose
 * engine copies on that S3, then the ordinary pass and a reader of the replica.
 */
class BatchPreCopyTest {
  private static final String TARGET = "s3://replica/copy/warehouse/ns/t";

  private EmbeddedS3 s3;
  private S3Warehouse warehouse;
  private RecordedS3Control control;
  private S3ObjectStore source;
  private S3ObjectStore target;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private Table table;
  private final List<JobProgress> heard = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket("source");
    s3.createBucket("replica");
    warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse");
    table =
        warehouse.create(
            "ns",
            "t",
            SourceTable.SCHEMA,
            PartitionSpec.builderFor(SourceTable.SCHEMA).identity("category").build(),
            java.util.Map.of("format-version", "2"));
    SourceTable writer = SourceTable.of(table, 1);
    writer.append("plain", 3);
    // Iceberg spells the partition "a+b%2Bc": a key holding a plus and a percent sign
    writer.append("a b+c", 2);
    writer.append("plain", 1);
    writer.append("other", 2);
    control = new RecordedS3Control(s3.client());
    S3Endpoint endpoint =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
    source =
        S3ObjectStore.create(endpoint, S3StoreSettings.defaults("test"), S3Resilience.defaults());
    target =
        S3ObjectStore.create(endpoint, S3StoreSettings.defaults("test"), S3Resilience.defaults());
  }

  @AfterEach
  void stop() {
    executor.shutdownNow();
    source.close();
    target.close();
    control.close();
    warehouse.close();
    s3.close();
  }

  @Test
  void jobCopiesTheMissingDataFilesAndTheOrdinaryPassCopiesItsFailedTask() throws Exception {
    List<String> dataFiles = dataFiles();
    String failing = dataFiles.get(0);
    control.failTasksOfKeysEndingWith(failing.substring(failing.lastIndexOf('/')));

    ReplicationSummary summary =
        replicator(options(1), this::hear).replicate(table.location(), TARGET, Optional.empty());

    // one job, asked for exactly as S3 Batch Operations needs it
    assertThat(control.createJobRequests()).hasSize(1);
    RecordedS3Control.Request create = control.createJobRequests().get(0);
    assertThat(create.headers()).containsEntry("x-amz-account-id", RecordedS3Control.ACCOUNT);
    Document request = RecordedS3Control.parse(create.body());
    String token = BatchPreCopy.token(table.location(), TARGET, S3Warehouse.metadataFile(table));
    String folder = ReplicaLayout.batchJobFolder(TARGET, token);
    assertThat(RecordedS3Control.text(request, "ClientRequestToken")).isEqualTo(token);
    assertThat(RecordedS3Control.text(request, "Description")).endsWith(token);
    assertThat(RecordedS3Control.text(request, "RoleArn")).isEqualTo(RecordedS3Control.ROLE);
    assertThat(RecordedS3Control.text(request, "ConfirmationRequired")).isEqualTo("false");
    assertThat(RecordedS3Control.text(request, "TargetResource")).isEqualTo("arn:aws:s3:::replica");
    assertThat(RecordedS3Control.text(request, "TargetKeyPrefix")).isEqualTo("copy/");
    assertThat(RecordedS3Control.text(request, "MetadataDirective")).isEqualTo("COPY");
    assertThat(RecordedS3Control.text(request, "Spec", "Format"))
        .isEqualTo("S3BatchOperations_CSV_20180820");
    assertThat(RecordedS3Control.text(request, "ObjectArn"))
        .isEqualTo(
            "arn:aws:s3:::replica/" + folder.substring("s3://replica/".length()) + "/manifest.csv");
    assertThat(RecordedS3Control.text(request, "ETag"))
        .isEqualTo(target.eTag(folder + "/manifest.csv").orElseThrow());
    assertThat(RecordedS3Control.text(request, "Report", "Format"))
        .isEqualTo("Report_CSV_20180820");
    assertThat(RecordedS3Control.text(request, "ReportScope")).isEqualTo("AllTasks");
    assertThat(RecordedS3Control.text(request, "Report", "Prefix"))
        .isEqualTo(folder.substring("s3://replica/".length()) + "/report");

    // the manifest lists exactly the data files, keys URL-encoded
    String manifest = read(folder + "/manifest.csv");
    Set<String> expected = new TreeSet<>();
    for (String file : dataFiles) {
      expected.add("source," + JobManifestCsv.encode(file.substring("s3://source/".length())));
    }
    assertThat(new TreeSet<>(List.of(manifest.split("\n")))).isEqualTo(expected);
    assertThat(manifest).contains("category%3Da%2Bb%252Bc/").doesNotContain("+");

    // progress heard through the recorded lifecycle; the failed task left to the ordinary pass
    assertThat(heard)
        .extracting(JobProgress::status)
        .containsExactly("New", "Preparing", "Active", "Complete");
    JobProgress done = heard.get(heard.size() - 1);
    assertThat(done.total()).isEqualTo(dataFiles.size());
    assertThat(done.succeeded()).isEqualTo(dataFiles.size() - 1);
    assertThat(done.failed()).isEqualTo(1);
    assertThat(summary.filesCopied()).isEqualTo(1);
    assertThat(target.length(TARGET + failing.substring(table.location().length()))).isPresent();

    assertReplicaReadsAsSource();
  }

  @Test
  void filesTheTargetHoldsWithTheirLengthAreNotInTheManifest() throws Exception {
    List<String> dataFiles = dataFiles();
    String inPlace = dataFiles.get(0);
    String truncated = dataFiles.get(1);
    target.copyFrom(source, inPlace, replicaPath(inPlace), -1);
    target.write(replicaPath(truncated), out -> out.write(new byte[] {1, 2, 3}));

    replicator(options(1), this::hear).replicate(table.location(), TARGET, Optional.empty());

    String token = BatchPreCopy.token(table.location(), TARGET, S3Warehouse.metadataFile(table));
    String manifest = read(ReplicaLayout.batchJobFolder(TARGET, token) + "/manifest.csv");
    assertThat(manifest.split("\n")).hasSize(dataFiles.size() - 1);
    assertThat(manifest)
        .doesNotContain(JobManifestCsv.encode(inPlace.substring("s3://source/".length())))
        .contains(JobManifestCsv.encode(truncated.substring("s3://source/".length())));
    assertReplicaReadsAsSource();
  }

  @Test
  void aRoleThatIsNotAnIamRoleArnIsRefused() {
    assertThatThrownBy(() -> BatchOperationsOptions.withRole("arn:aws:s3:::bucket"))
        .hasMessage(
            "Cannot use arn:aws:s3:::bucket as the S3 Batch Operations role: not an IAM role ARN");
    assertThat(BatchOperationsOptions.withRole(RecordedS3Control.ROLE).account())
        .isEqualTo(RecordedS3Control.ACCOUNT);
  }

  private String replicaPath(String sourcePath) {
    return TARGET + sourcePath.substring(table.location().length());
  }

  @Test
  void rerunAfterACrashFollowsTheSameJob() throws Exception {
    assertThatThrownBy(
            () ->
                replicator(
                        options(1),
                        (t, p) -> {
                          throw new IllegalStateException("killed while following the job");
                        })
                    .replicate(table.location(), TARGET, Optional.empty()))
        .hasMessageContaining("killed");
    assertThat(control.jobsCreated()).isEqualTo(1);

    replicator(options(1), this::hear).replicate(table.location(), TARGET, Optional.empty());

    assertThat(control.createJobRequests()).hasSize(1);
    assertThat(heard).extracting(JobProgress::jobId).containsOnly(jobIdOfFirstRequest());
    assertReplicaReadsAsSource();
  }

  @Test
  void rerunWithoutTheMarkerFindsTheJobByItsDescription() throws Exception {
    String token = BatchPreCopy.token(table.location(), TARGET, S3Warehouse.metadataFile(table));
    String marker = ReplicaLayout.batchJobFolder(TARGET, token) + "/job-id";
    assertThatThrownBy(
            () ->
                replicator(
                        options(1),
                        (t, p) -> {
                          throw new IllegalStateException("killed while following the job");
                        })
                    .replicate(table.location(), TARGET, Optional.empty()))
        .hasMessageContaining("killed");
    target.delete(marker);

    replicator(options(1), this::hear).replicate(table.location(), TARGET, Optional.empty());

    assertThat(control.createJobRequests()).hasSize(1);
    assertThat(control.requests())
        .anyMatch(r -> r.method().equals("GET") && r.path().equals("/v20180820/jobs"));
    assertThat(heard).extracting(JobProgress::jobId).containsOnly(jobIdOfFirstRequest());
    assertThat(target.length(marker)).isPresent();
    assertReplicaReadsAsSource();
  }

  @Test
  void failedJobFailsTheRunAndPublishesNothing() {
    control.endJobsFailed();

    assertThatThrownBy(
            () ->
                replicator(options(1), this::hear)
                    .replicate(table.location(), TARGET, Optional.empty()))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining(
            "Cannot backfill table "
                + table.location()
                + " through S3 Batch Operations job "
                + jobIdOfFirstRequest()
                + ": Failed (AccessDenied: Reading the manifest is forbidden)");
    assertThat(exists(ReplicaLayout.metadataFile(TARGET, 1))).isFalse();
    assertThat(exists(ReplicaLayout.versionHintFile(TARGET))).isFalse();
  }

  @Test
  void belowTheThresholdNoJobIsCreated() throws Exception {
    replicator(
            new BatchOperationsOptions(
                Optional.of(RecordedS3Control.ROLE),
                Optional.empty(),
                dataFiles().size() + 1,
                1L << 40,
                Duration.ofMillis(1),
                10),
            this::hear)
        .replicate(table.location(), TARGET, Optional.empty());

    assertThat(control.createJobRequests()).isEmpty();
    String token = BatchPreCopy.token(table.location(), TARGET, S3Warehouse.metadataFile(table));
    assertThat(exists(ReplicaLayout.batchJobFolder(TARGET, token) + "/manifest.csv")).isFalse();
    assertReplicaReadsAsSource();
  }

  @Test
  void aMappingThatIsNotSameKeyWithAPrefixCreatesNoJob() throws Exception {
    String elsewhere = "s3://replica/elsewhere/t";
    replicator(options(1), this::hear).replicate(table.location(), elsewhere, Optional.empty());

    assertThat(control.requests()).isEmpty();
    try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
      Table replica = S3CommandFixture.load(io, ReplicaLayout.metadataFile(elsewhere, 1));
      assertThat(SourceTable.rows(replica, table.currentSnapshot().snapshotId()))
          .isEqualTo(SourceTable.rows(table, table.currentSnapshot().snapshotId()));
    }
  }

  private void hear(String table, JobProgress progress) {
    heard.add(progress);
  }

  private BatchOperationsOptions options(long minFiles) {
    return new BatchOperationsOptions(
        Optional.of(RecordedS3Control.ROLE),
        Optional.empty(),
        minFiles,
        1L << 40,
        Duration.ofMillis(1),
        10);
  }

  private TableReplicator replicator(BatchOperationsOptions options, BatchJobListener listener) {
    return TableReplicator.builder(
            source,
            target,
            executor,
            new ReplicationOptions(
                List.of(), false, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES, 4, Duration.ZERO))
        .clock(Clock.systemUTC())
        .progress(CopyProgress.Listener.NONE)
        .catalogs(TableCatalogs.NONE)
        .batchPreCopy(
            Optional.of(
                new BatchPreCopy(
                    options, new BatchJobs(control.client(), options.account()), listener)))
        .build();
  }

  private String jobIdOfFirstRequest() {
    return control.requests().stream()
        .filter(r -> r.method().equals("GET") && r.path().startsWith("/v20180820/jobs/"))
        .map(r -> r.path().substring("/v20180820/jobs/".length()))
        .findFirst()
        .orElseThrow();
  }

  private List<String> dataFiles() throws IOException {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        files.add(file.location());
      }
    }
    files.sort(null);
    return files;
  }

  private void assertReplicaReadsAsSource() {
    try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
      Table replica = S3CommandFixture.load(io, ReplicaLayout.metadataFile(TARGET, 1));
      for (Snapshot snapshot : table.snapshots()) {
        assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
        assertThat(SourceTable.rowsAsOf(replica, snapshot.timestampMillis()))
            .isEqualTo(SourceTable.rowsAsOf(table, snapshot.timestampMillis()));
      }
      try (CloseableIterable<FileScanTask> tasks = replica.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          assertThat(task.file().location()).startsWith(TARGET + "/");
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  private String read(String path) throws IOException {
    try (var in = target.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private boolean exists(String path) {
    try {
      return target.length(path).isPresent();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
