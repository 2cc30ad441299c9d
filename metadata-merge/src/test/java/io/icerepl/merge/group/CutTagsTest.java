package io.icerepl.merge.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.merge.MergeRequest;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.TableLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's tags on a replica: their names, how a cut moves them, and the ref-only commit that
 * writes them, read back and expired by the Iceberg library itself.
 */
class CutTagsTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final long CUT = Instant.parse("2026-12-03T15:48:17.345Z").toEpochMilli();

  @Test
  void aCutIsTaggedAtItsSecondAndATagNamesItsRefAndMomentOnly() {
    long moment = CutTags.momentOf(CUT);
    assertThat(Instant.ofEpochMilli(moment)).isEqualTo(Instant.parse("2026-12-03T15:48:17Z"));
    assertThat(CutTags.name("sales", moment)).isEqualTo("sales-20261203T154817Z");
    assertThat(CutTags.momentOfTag("sales", "sales-20261203T154817Z")).hasValue(moment);
    assertThat(CutTags.momentOfTag("sales", "sales-eu-20261203T154817Z")).isEmpty();
    assertThat(CutTags.momentOfTag("sales-eu", "sales-eu-20261203T154817Z")).hasValue(moment);
    assertThat(CutTags.momentOfTag("sales", "sales-20261303T154817Z"))
        .as("month 13 is no moment")
        .isEmpty();
    assertThat(CutTags.isOf("sales", "sales")).isTrue();
    assertThat(CutTags.isOf("sales", "sales-eu")).isFalse();
  }

  @Test
  void aCutMovesTheTagsForwardOnlyDropsOldCutTagsAndLeavesOtherGroupsAlone() {
    long first = CutTags.momentOf(CUT);
    Map<String, Long> tags = new LinkedHashMap<>();
    tags.put("sales-eu", 7L);
    tags.put("sales-eu-20261201T000000Z", 7L);
    tags = CutTags.moved(tags, "sales", first, 10L, first - 3_600_000);
    assertThat(tags)
        .containsEntry("sales", 10L)
        .containsEntry("sales-20261203T154817Z", 10L)
        .containsEntry("sales-eu", 7L)
        .containsEntry("sales-eu-20261201T000000Z", 7L)
        .hasSize(4);

    long second = first + 60_000;
    Map<String, Long> moved = CutTags.moved(tags, "sales", second, 11L, first);
    assertThat(moved)
        .containsEntry("sales", 11L)
        .containsEntry("sales-20261203T154817Z", 10L)
        .containsEntry("sales-20261203T154917Z", 11L);
    assertThat(CutTags.moved(moved, "sales", first, 10L, 0))
        .as("an older cut moves nothing")
        .isEqualTo(moved);
    assertThat(CutTags.moved(moved, "sales", second + 60_000, 12L, second))
        .as("cut tags older than the horizon go, the newest stays")
        .doesNotContainKey("sales-20261203T154817Z")
        .containsEntry("sales-20261203T154917Z", 11L)
        .containsEntry("sales", 12L);
    assertThat(CutTags.newest("sales", moved.keySet())).hasValue(second);
    assertThat(CutTags.newest("orders", moved.keySet())).isEmpty();
    assertThat(
            CutTags.newestOnAll(
                "sales",
                List.of(moved.keySet(), java.util.Set.of("sales-20261203T154817Z", "sales"))))
        .as("the newest cut tag both tables carry")
        .hasValue("sales-20261203T154817Z");
    assertThat(CutTags.newestOnAll("sales", List.of(moved.keySet(), java.util.Set.of("main"))))
        .isEmpty();
  }

  @Test
  void theRefOnlyCommitIsReadByIcebergAndItsTagKeepsItsSnapshotThroughIcebergsExpiry(
      @TempDir Path dir) throws Exception {
    Table table = table(dir);
    append(table, 1);
    long tagged = table.currentSnapshot().snapshotId();
    append(table, 2);
    long current = table.currentSnapshot().snapshotId();
    String before = metadataFile(table);
    TableMetadata replica = read(before);

    Map<String, Long> tags = CutTags.moved(Map.of(), "sales", CutTags.momentOf(CUT), tagged, 0);
    TableMetadata committed = CutTags.commit(replica, before, Map.of(), tags, CUT);
    publish(table, committed);

    Table reread = new HadoopTables(new Configuration()).load(table.location());
    assertThat(reread.currentSnapshot().snapshotId()).isEqualTo(current);
    assertThat(reread.snapshot("sales").snapshotId()).isEqualTo(tagged);
    assertThat(reread.snapshot("sales-20261203T154817Z").snapshotId()).isEqualTo(tagged);
    SnapshotRef ref = reread.refs().get("sales");
    assertThat(ref.isTag()).isTrue();
    assertThat(ref.maxRefAgeMs()).isEqualTo(Long.MAX_VALUE);
    assertThat(reread.history()).hasSameSizeAs(table.history());
    assertThat(
            ((HasTableOperations) reread)
                .operations().current().previousFiles().stream()
                    .map(org.apache.iceberg.TableMetadata.MetadataLogEntry::file))
        .contains(before);

    reread.expireSnapshots().expireOlderThan(Long.MAX_VALUE).retainLast(1).commit();
    reread.refresh();
    assertThat(reread.snapshot(tagged))
        .as("Iceberg's expiry keeps the tagged snapshot")
        .isNotNull();

    // moving the tags drops the moving tag's old position and keeps the cut tag
    TableMetadata tagsOn = read(metadataFile(reread));
    Map<String, Long> later =
        CutTags.moved(tags, "sales", CutTags.momentOf(CUT) + 1000, current, 0);
    publish(reread, CutTags.commit(tagsOn, metadataFile(reread), tags, later, CUT + 1000));
    reread.refresh();
    assertThat(reread.snapshot("sales").snapshotId()).isEqualTo(current);
    assertThat(reread.snapshot("sales-20261203T154817Z").snapshotId()).isEqualTo(tagged);
    assertThat(reread.snapshot("sales-20261203T154818Z").snapshotId()).isEqualTo(current);
  }

  @Test
  void replicationKeepsTheCutTagsAndRefusesASourceRefOfTheSameName(@TempDir Path dir)
      throws Exception {
    Table table = table(dir);
    append(table, 1);
    long tagged = table.currentSnapshot().snapshotId();
    String replicaFile = metadataFile(table);
    Map<String, Long> tags = CutTags.moved(Map.of(), "sales", CutTags.momentOf(CUT), tagged, 0);
    TableMetadata replica = CutTags.commit(read(replicaFile), replicaFile, Map.of(), tags, CUT);
    append(table, 2);
    String sourceFile = metadataFile(table);
    TableMetadata source = read(sourceFile);

    TableMetadata merged = merge(source, sourceFile, replica, replicaFile, tags).metadata();
    assertThat(merged.refs())
        .containsEntry("sales", tagged)
        .containsEntry("sales-20261203T154817Z", tagged)
        .containsEntry("main", table.currentSnapshot().snapshotId());
    assertThat(MainAt.snapshotAt(merged, Long.MAX_VALUE))
        .hasValue(table.currentSnapshot().snapshotId());
    assertThat(MainAt.snapshotAt(merged, table.snapshot(tagged).timestampMillis()))
        .as("the tagged snapshot stays on main's history")
        .isEqualTo(OptionalLong.of(tagged));
    assertThat(merge(source, sourceFile, replica, replicaFile, Map.of()).metadata().refs())
        .as("without the state's tags the source's refs alone")
        .doesNotContainKey("sales");

    table.manageSnapshots().createTag("sales", table.currentSnapshot().snapshotId()).commit();
    String clashing = metadataFile(table);
    assertThatThrownBy(() -> merge(read(clashing), clashing, replica, replicaFile, tags))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("its ref 'sales'")
        .hasMessageContaining("a group's cut tag of that name");
  }

  /**
   * A table's cut tags are those its state records that its metadata holds at the same snapshot: a
   * source's tag named like a cut tag is not one, nor is one recorded for a commit not published.
   */
  @Test
  void aTableCarriesTheCutTagsItsStateRecordsNotRefsNamedLikeThem(@TempDir Path dir)
      throws Exception {
    Table table = table(dir);
    append(table, 1);
    long first = table.currentSnapshot().snapshotId();
    append(table, 2);
    long second = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("sales-20991231T235959Z", first).commit();
    String replicaFile = metadataFile(table);
    Map<String, Long> tags = CutTags.moved(Map.of(), "sales", CutTags.momentOf(CUT), second, 0);
    TableMetadata tagged = CutTags.commit(read(replicaFile), replicaFile, Map.of(), tags, CUT);

    assertThat(CutTags.carried(tagged, tags))
        .containsExactlyInAnyOrder("sales", "sales-20261203T154817Z");
    assertThat(CutTags.newestOnAll("sales", List.of(CutTags.carried(tagged, tags))))
        .hasValue("sales-20261203T154817Z");
    assertThat(CutTags.carried(read(replicaFile), tags))
        .as("recorded in the state, its commit not published yet")
        .isEmpty();
    assertThat(CutTags.newestOnAll("sales", List.of(tagged.refs().keySet())))
        .as("matched by name, the source's tag would be the newest cut")
        .hasValue("sales-20991231T235959Z");
  }

  @Test
  void aTablePromotedAtACutIsWrittenAndExpiredByIcebergWithWhatCameAfterKept(@TempDir Path dir)
      throws Exception {
    Table table = table(dir);
    append(table, 1);
    long cut = table.currentSnapshot().snapshotId();
    append(table, 2);
    append(table, 3);
    long head = table.currentSnapshot().snapshotId();
    String replicaFile = metadataFile(table);
    Map<String, Long> tags = CutTags.moved(Map.of(), "sales", CutTags.momentOf(CUT), cut, 0);
    publish(table, CutTags.commit(read(replicaFile), replicaFile, Map.of(), tags, CUT));
    String tagged = metadataFile(table);
    String cutTag = CutTags.name("sales", CutTags.momentOf(CUT));
    publish(
        table,
        io.icerepl.merge.failover.PromotedMetadata.of(
            read(tagged), tagged, 1, System.currentTimeMillis(), cutTag));

    Table promoted = new HadoopTables(new Configuration()).load(table.location());
    assertThat(promoted.currentSnapshot().snapshotId()).isEqualTo(cut);
    SnapshotRef kept = promoted.refs().get(cutTag + "-replicated");
    assertThat(kept.isBranch()).isTrue();
    assertThat(kept.snapshotId()).isEqualTo(head);
    assertThat(kept.minSnapshotsToKeep()).isEqualTo(2);
    assertThat(promoted.history().get(promoted.history().size() - 1).snapshotId())
        .as("the move to the cut is in the snapshot log, as a rollback")
        .isEqualTo(cut);

    // a writer commits to the promoted main, then Iceberg's own expiry runs
    append(promoted, 4);
    promoted.expireSnapshots().expireOlderThan(Long.MAX_VALUE).retainLast(1).commit();
    promoted.refresh();
    assertThat(promoted.currentSnapshot().parentId()).isEqualTo(cut);
    assertThat(promoted.snapshot(head)).isNotNull();
    assertThat(promoted.snapshot(promoted.snapshot(head).parentId()))
        .as("every snapshot replicated after the cut stays on the branch")
        .isNotNull();
  }

  private static io.icerepl.merge.merge.MergeResult merge(
      TableMetadata source,
      String sourceFile,
      TableMetadata replica,
      String replicaFile,
      Map<String, Long> tags) {
    return MetadataMerge.merge(
        MergeRequest.builder()
            .source(source, sourceFile)
            .replica(replica, replicaFile)
            .targetLocation(source.location())
            .mapping(TableLayout.mapping(source, source.location(), List.of()))
            .commitTimeMs(CUT + 5000)
            .cutTags(tags)
            .build());
  }

  private static Table table(Path dir) {
    return new HadoopTables(new Configuration())
        .create(SCHEMA, PartitionSpec.unpartitioned(), dir.resolve("t").toUri().toString());
  }

  private static void append(Table table, int batch) {
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/batch-" + batch + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build())
        .commit();
  }

  private static String metadataFile(Table table) {
    return ((HasTableOperations) table).operations().refresh().metadataFileLocation();
  }

  private static TableMetadata read(String file) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of(java.net.URI.create(file)))) {
      return TableMetadataParser.read(in, file, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES);
    }
  }

  /** Publishes {@code metadata} as the Hadoop table's next version, as a replica commit does. */
  private static void publish(Table table, TableMetadata metadata) throws IOException {
    int version = versionOf(metadataFile(table)) + 1;
    Path folder = Path.of(java.net.URI.create(table.location())).resolve("metadata");
    try (OutputStream out =
        Files.newOutputStream(folder.resolve("v" + version + ".metadata.json"))) {
      TableMetadataParser.write(metadata, out);
    }
    Files.writeString(
        folder.resolve("version-hint.text"), Integer.toString(version), StandardCharsets.UTF_8);
  }

  private static int versionOf(String file) {
    String name = file.substring(file.lastIndexOf('/') + 2);
    return Integer.parseInt(name.substring(0, name.indexOf('.')));
  }
}
