package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.app.engine.S3CommandFixture.Run;
import io.icerepl.app.engine.catalog.TablePaths;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedAzurite;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.failover.PromotedMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands across stores, Azure on one side: {@code replicate} from S3 to Azure and from Azure
 * to S3, {@code verify} and {@code expire} of a replica on Azure, and a fail-back from a promoted
 * local replica onto its original on Azure. Every replica is read back through Iceberg's own FileIO
 * for its store at every snapshot and ref. Skips, saying so, where Azurite is not installed.
 */
class CrossStoreCommandsTest {
  private static final String CONTAINER = "lake";
  private static AzuriteReplicas azure;
  private static EmbeddedS3 s3;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    azure = AzuriteReplicas.startOrSkip(CONTAINER);
    s3 = EmbeddedS3.start();
    s3.createBucket("source");
    s3.createBucket("replica");
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
    if (azure != null) {
      azure.close();
    }
  }

  @BeforeEach
  void s3Credentials() {
    S3CommandFixture.setCredentials();
  }

  @AfterEach
  void noS3Credentials() {
    S3CommandFixture.clearCredentials();
  }

  @Test
  void aTableOnS3IsReplicatedToAzure() {
    try (S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse")) {
      ScenarioTable source = S3SourceTables.ordersWithDeletesAndTag(warehouse, "orders");
      String target = azure.location("wh/from-s3/orders");

      Run replicate =
          S3CommandFixture.run(
              "replicate",
              "--source",
              source.location(),
              "--target",
              target,
              "--source-endpoint",
              s3.endpoint().toString(),
              "--target-endpoint",
              azure.endpoint(),
              "--path-style",
              "--settle-time",
              "0s");

      assertThat(replicate.exit()).as(replicate.out() + replicate.err()).isZero();
      assertThat(azure.problems(source.expectations(), source.location(), target))
          .as("replica %s", target)
          .isEmpty();
      Run verify =
          S3CommandFixture.run(
              "verify",
              "--source",
              source.location(),
              "--target",
              target,
              "--source-endpoint",
              s3.endpoint().toString(),
              "--target-endpoint",
              azure.endpoint(),
              "--path-style",
              "--settle-time",
              "0s");
      assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
    }
  }

  @Test
  void aTableOnAzureIsReplicatedToS3() {
    ScenarioTable local = Scenario.ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY.write(dir);
    String onAzure = toAzure(local, "wh/to-s3/orders");
    String target = "s3://replica/wh/from-azure/orders";

    Run replicate =
        S3CommandFixture.run(
            "replicate",
            "--source",
            onAzure,
            "--target",
            target,
            "--source-endpoint",
            azure.endpoint(),
            "--target-endpoint",
            s3.endpoint().toString(),
            "--path-style",
            "--settle-time",
            "0s");

    assertThat(replicate.exit()).as(replicate.out() + replicate.err()).isZero();
    try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
      assertThat(ReplicaReadBack.problems(io, local.expectations(), onAzure, target))
          .as("replica %s", target)
          .isEmpty();
    }
    Run verify =
        S3CommandFixture.run(
            "verify",
            "--source",
            onAzure,
            "--target",
            target,
            "--source-endpoint",
            azure.endpoint(),
            "--target-endpoint",
            s3.endpoint().toString(),
            "--path-style",
            "--settle-time",
            "0s");
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
  }

  @Test
  void verifyOfAReplicaOnAzureNamesTheDataFileItLost() {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    String target = toAzure(source, "wh/verify/orders");
    Run clean = azureCli("verify", "--target", target, "--source", source.location());
    assertThat(clean.exit()).as(clean.out() + clean.err()).isZero();

    Table replica = ReplicaReadBack.table(azure.io(), target);
    DataFile lost = replica.currentSnapshot().addedDataFiles(replica.io()).iterator().next();
    azure.io().deleteFile(lost.location());

    Run broken = azureCli("verify", "--target", target, "--source", source.location());
    assertThat(broken.exit()).as(broken.out() + broken.err()).isNotZero();
    String name = lost.location().substring(lost.location().lastIndexOf('/') + 1);
    assertThat(broken.out() + broken.err()).contains(name);
  }

  @Test
  void expireOnAzureRemovesTheExpiredSnapshotsFilesAndKeepsTheRetainedOnesReadable() {
    ScenarioTable source = Scenario.OVERWRITE_AND_COMPACTION_REWRITE.write(dir);
    String target = toAzure(source, "wh/expire/orders");
    Set<String> before = contentFiles(ReplicaReadBack.table(azure.io(), target));

    Run expire =
        azureCli(
            "expire",
            "--target",
            target,
            "--retention-period",
            "1ms",
            "--retain-last",
            "1",
            "--max-ref-age",
            "1ms");

    assertThat(expire.exit()).as(expire.out() + expire.err()).isZero();
    assertThat(expire.out()).contains("expired_snapshots_count");
    Table replica = ReplicaReadBack.table(azure.io(), target);
    int retained = 0;
    for (Snapshot snapshot : replica.snapshots()) {
      retained++;
      assertThat(Rows.atSnapshot(replica, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(source.expectations().snapshotRows().get(snapshot.snapshotId()));
    }
    assertThat(retained).isLessThan(source.expectations().snapshotRows().size());
    Set<String> kept = contentFiles(replica);
    Set<String> expired = new HashSet<>(before);
    expired.removeAll(kept);
    assertThat(expired).as("files only expired snapshots named").isNotEmpty();
    assertThat(expired).allSatisfy(f -> assertThat(azure.io().newInputFile(f).exists()).isFalse());
    assertThat(kept).allSatisfy(f -> assertThat(azure.io().newInputFile(f).exists()).isTrue());
    Run verify = azureCli("verify", "--target", target, "--source", source.location());
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
  }

  @Test
  void aPromotedLocalReplicaFailsBackOntoItsOriginalOnAzure() {
    ScenarioTable first = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    String original = toAzure(first, "wh/failback/orders");
    // the table on Azure becomes a primary of its own, as a table its writers wrote there would be
    Run primary = azureCli("promote", "--target", original, "--mode", "now");
    assertThat(primary.exit()).as(primary.out() + primary.err()).isZero();
    assertThat(ReplicaReadBack.table(azure.io(), original).properties())
        .doesNotContainKey("replicator.read-only");
    String promotedLocation = dir.resolve("promoted").toUri().toString();
    Run replicate =
        S3CommandFixture.run(
            "replicate",
            "--source",
            original,
            "--target",
            promotedLocation,
            "--source-endpoint",
            azure.endpoint(),
            "--settle-time",
            "0s");
    assertThat(replicate.exit()).as(replicate.out() + replicate.err()).isZero();
    Run promote = S3CommandFixture.run("promote", "--target", promotedLocation, "--mode", "now");
    assertThat(promote.exit()).as(promote.out() + promote.err()).isZero();

    Table table = new HadoopTables(new Configuration()).load(promotedLocation);
    ScenarioTable promoted = ScenarioTable.of("promoted", promotedLocation, table);
    DataFile written =
        promoted.append(promoted.row(100, "p", "x"), promoted.row(101, "q", "y")).get(0);
    promoted.commitDeletes(promoted.writePositionDeletes(FileFormat.PARQUET, written, 0));
    promoted.append(promoted.row(102, "r", "z"));
    promoted.record();

    Run failback = azureCli("failback", "--primary", promotedLocation, "--old-source", original);

    assertThat(failback.exit()).as(failback.out() + failback.err()).isZero();
    assertThat(azure.problems(promoted.expectations(), promotedLocation, original))
        .as("original %s", original)
        .isEmpty();
    assertThat(ReplicaReadBack.table(azure.io(), original).properties())
        .containsEntry("replicator.read-only", "true");
    Run verify = azureCli("verify", "--source", promotedLocation, "--target", original);
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
  }

  @Test
  void aReplicaOnAzureIsPromotedInSafeModeFromItsLocalSource() {
    ScenarioTable source = Scenario.BRANCHES_AND_TAGS.write(dir);
    String target = toAzure(source, "wh/promote/orders");

    Run promote = azureCli("promote", "--target", target, "--source", source.location());

    assertThat(promote.exit()).as(promote.out() + promote.err()).isZero();
    assertThat(promote.out()).contains("table              " + target, "epoch              1");
    assertThat(ReplicaReadBack.table(azure.io(), target).properties())
        .doesNotContainKey("replicator.read-only")
        .containsEntry("replicator.epoch", "1");
    // promotion leaves a gap after the last sequence number (PromotedMetadata), on purpose
    long last = ((HasTableOperations) source.table()).operations().current().lastSequenceNumber();
    assertThat(azure.problems(source.expectations(), source.location(), target))
        .containsExactly(
            "table facts differ: lastSequenceNumber: expected "
                + last
                + ", replica "
                + (last + PromotedMetadata.SEQUENCE_NUMBER_GAP));
    Run replicate = azureCli("replicate", "--source", source.location(), "--target", target);
    assertThat(replicate.exit()).isEqualTo(1);
    assertThat(replicate.err()).contains("the replica was promoted at", "epoch 1");
  }

  @Test
  void theCommandsTakeAReplicaOnAzureByItsBlobEndpointsNameToo() {
    ScenarioTable source = Scenario.OVERWRITE_AND_COMPACTION_REWRITE.write(dir);
    String target = toAzure(source, "wh/blob-name/orders");
    String blobName =
        "wasbs://"
            + CONTAINER
            + "@"
            + EmbeddedAzurite.ACCOUNT_NAME
            + ".blob.core.windows.net"
            + "/wh/blob-name/orders";

    Run again = azureCli("replicate", "--source", source.location(), "--target", blobName);
    assertThat(again.exit()).as(again.out() + again.err()).isZero();
    Run verify = azureCli("verify", "--target", blobName, "--source", source.location());
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
    Run expire =
        azureCli(
            "expire",
            "--target",
            blobName,
            "--retention-period",
            "1ms",
            "--retain-last",
            "1",
            "--max-ref-age",
            "1ms");
    assertThat(expire.exit()).as(expire.out() + expire.err()).isZero();

    Table replica = ReplicaReadBack.table(azure.io(), target);
    for (Snapshot snapshot : replica.snapshots()) {
      assertThat(Rows.atSnapshot(replica, snapshot.snapshotId()))
          .isEqualTo(source.expectations().snapshotRows().get(snapshot.snapshotId()));
    }
    assertThat(contentFiles(replica))
        .allSatisfy(f -> assertThat(azure.io().newInputFile(f).exists()).isTrue());
    assertThat(TablePaths.outside(replica, azure.io(), target)).isEmpty();
  }

  /** {@code source} replicated to {@code path} on Azure: a complete path-based table there. */
  private static String toAzure(ScenarioTable source, String path) {
    String target = azure.location(path);
    Run run = azureCli("replicate", "--source", source.location(), "--target", target);
    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(azure.problems(source.expectations(), source.location(), target)).isEmpty();
    return target;
  }

  /** The data and delete files every snapshot of {@code table} reads. */
  private static Set<String> contentFiles(Table table) {
    Set<String> files = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          files.add(task.file().location());
          task.deletes().forEach(d -> files.add(d.location()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  /** The CLI, its target side on Azurite, settling at once where the command reads a head. */
  private static Run azureCli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--target-endpoint", azure.endpoint()));
    if (!"expire".equals(args[0])) {
      all.addAll(List.of("--settle-time", "0s"));
    }
    return S3CommandFixture.run(all.toArray(String[]::new));
  }
}
