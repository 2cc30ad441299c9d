package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.catalog.SourceCatalog.Run;
import io.icerepl.merge.merge.ReplicaProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code promote --target-catalog}: the replica's entry in a real target catalog names the promoted
 * version, writable, and Iceberg's own catalog client then commits to it.
 */
class PromoteCatalogEntryTest {
  private static final TableIdentifier ID = TableIdentifier.of("sales", "orders");
  private static final Pattern PROMOTED = Pattern.compile("replica version +\\d+ (\\S+)");

  @TempDir Path dir;
  private TargetCatalog target;
  private SourceTable source;
  private String replica;

  @AfterEach
  void closeCatalog() throws Exception {
    if (target != null) {
      target.close();
    }
  }

  private void replicated(TargetCatalog.Kind kind) throws Exception {
    target = TargetCatalog.start(kind, dir.resolve("catalog"));
    source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 2);
    replica = dir.resolve("replica").toUri().toString();
    Run run =
        Run.of(
            "replicate",
            "--source",
            source.location,
            "--target",
            replica,
            "--target-catalog",
            target.commandLine(),
            "--target-table",
            "sales.orders",
            "--settle-time",
            "0s");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(target.entry(ID).properties()).containsEntry(ReplicaProperties.READ_ONLY, "true");
  }

  /** A REST catalog's entry is dropped, its files kept, and the promoted version registered. */
  @ParameterizedTest
  @EnumSource(
      value = TargetCatalog.Kind.class,
      names = {"JDBC", "REST", "GLUE"})
  void theEntryNamesThePromotedVersionAndWritersCommitThroughTheCatalog(TargetCatalog.Kind kind)
      throws Exception {
    replicated(kind);

    Run promoted = promote(true);

    assertThat(promoted.exit()).as(promoted.err()).isZero();
    assertThat(promoted.out()).contains("catalog entry      target:sales.orders");
    String promotedFile = promotedFile(promoted);
    assertThat(target.entryFile(ID)).isEqualTo(promotedFile);
    Table entry = target.catalog().loadTable(ID);
    assertThat(entry.properties())
        .doesNotContainKey(ReplicaProperties.READ_ONLY)
        .containsEntry(ReplicaProperties.EPOCH, "1");
    for (Snapshot snapshot : source.table.snapshots()) {
      assertThat(SourceTable.rows(entry, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
    }
    long lastSequenceNumber = lastSequenceNumber(entry);
    assertThat(lastSequenceNumber)
        .isEqualTo(source.table.currentSnapshot().sequenceNumber() + (1L << 20));

    SourceTable.of(entry, 1_000).append("c", 2);

    Table written = target.catalog().loadTable(ID);
    assertThat(written.currentSnapshot().sequenceNumber()).isEqualTo(lastSequenceNumber + 1);
    List<String> expected =
        new ArrayList<>(
            SourceTable.rows(source.table, source.table.currentSnapshot().snapshotId()));
    expected.addAll(List.of("Record(1000, c)", "Record(1001, c)"));
    expected.sort(null);
    assertThat(SourceTable.rows(written, written.currentSnapshot().snapshotId()))
        .isEqualTo(expected);
    String writersFile = target.entryFile(ID);
    assertThat(writersFile).isNotEqualTo(promotedFile);

    // a rerun leaves the writers' commit where it is
    Run again = promote(true);
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(again.out())
        .contains("already promoted at ", "catalog entry      target:sales.orders");
    assertThat(target.entryFile(ID)).isEqualTo(writersFile);
  }

  /**
   * A source that deletes its old metadata files: the catalog's commits on the replica (and the
   * writers' on the promoted table) keep every replica version, so a rerun of promote still finds
   * the promoted one.
   */
  @ParameterizedTest
  @EnumSource(
      value = TargetCatalog.Kind.class,
      names = {"JDBC", "REST", "GLUE"})
  void aSourceThatDeletesOldMetadataFilesDoesNotMakeTheCatalogDeleteTheReplicasHistory(
      TargetCatalog.Kind kind) throws Exception {
    target = TargetCatalog.start(kind, dir.resolve("catalog"));
    source = SourceTable.create(dir.resolve("source"), 2);
    source
        .table
        .updateProperties()
        .set(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "true")
        .set("write.metadata.previous-versions-max", "1")
        .commit();
    replica = dir.resolve("replica").toUri().toString();
    java.util.Set<String> versions = new java.util.TreeSet<>();
    for (String category : List.of("a", "b", "c")) {
      source.append(category, 2);
      Run run =
          Run.of(
              "replicate",
              "--source",
              source.location,
              "--target",
              replica,
              "--target-catalog",
              target.commandLine(),
              "--target-table",
              "sales.orders",
              "--settle-time",
              "0s");
      assertThat(run.exit()).as(run.err()).isZero();
      versions.addAll(replicaVersionFiles());
    }
    Run promoted = promote(true);
    assertThat(promoted.exit()).as(promoted.err()).isZero();
    String promotedFile = promotedFile(promoted);
    versions.addAll(replicaVersionFiles());
    Table entry = target.catalog().loadTable(ID);
    SourceTable writer = SourceTable.of(entry, 1_000);
    writer.append("d", 1);
    writer.append("e", 1);

    assertThat(replicaVersionFiles()).as("every replica version kept").containsAll(versions);
    assertThat(java.nio.file.Path.of(java.net.URI.create(promotedFile))).exists();
    Run again = promote(true);
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(again.out()).contains("already promoted at ");
    assertThat(target.entry(ID).properties())
        .as("the promoted table's writers keep every file too; the source's setting is kept")
        .containsEntry(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "false")
        .containsEntry(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT, "true");
  }

  /** The names of the replica's metadata files. */
  private List<String> replicaVersionFiles() throws java.io.IOException {
    try (java.util.stream.Stream<java.nio.file.Path> files =
        java.nio.file.Files.list(dir.resolve("replica").resolve("metadata"))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".metadata.json"))
          .sorted()
          .toList();
    }
  }

  @Test
  void aRerunMovesTheEntryAnEarlierPromotionPublishedWithoutMovingIt() throws Exception {
    replicated(TargetCatalog.Kind.JDBC);
    String registered = target.entryFile(ID);
    Run stopped = promote(false);
    assertThat(stopped.exit()).as(stopped.err()).isZero();
    assertThat(target.entryFile(ID)).isEqualTo(registered);

    Run rerun = promote(true);

    assertThat(rerun.exit()).as(rerun.err()).isZero();
    assertThat(rerun.out()).contains("already promoted at ");
    assertThat(target.entryFile(ID)).isEqualTo(promotedFile(rerun));
    assertThat(target.entry(ID).properties()).doesNotContainKey(ReplicaProperties.READ_ONLY);
    Table entry = target.catalog().loadTable(ID);
    SourceTable.of(entry, 1_000).append("c", 1);
    assertThat(target.catalog().loadTable(ID).currentSnapshot().parentId())
        .isEqualTo(source.table.currentSnapshot().snapshotId());
  }

  private Run promote(boolean withCatalog) {
    List<String> args = new ArrayList<>(List.of("promote", "--mode", "now", "--target", replica));
    if (withCatalog) {
      args.addAll(
          List.of("--target-catalog", target.commandLine(), "--target-table", "sales.orders"));
    }
    return Run.of(args.toArray(String[]::new));
  }

  private static String promotedFile(Run run) {
    Matcher m = PROMOTED.matcher(run.out());
    assertThat(m.find()).as(run.out()).isTrue();
    return m.group(1);
  }

  private static long lastSequenceNumber(Table table) {
    return ((HasTableOperations) table).operations().current().lastSequenceNumber();
  }
}
