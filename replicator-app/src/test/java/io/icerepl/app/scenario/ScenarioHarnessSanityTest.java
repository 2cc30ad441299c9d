package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checks the harness on its own, without the replicator: every scenario writer produces what it
 * says, the verifier passes a source table checked against itself, and it fails on replicas that
 * are wrong.
 */
class ScenarioHarnessSanityTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @ParameterizedTest
  @EnumSource(Scenario.class)
  void verifierPassesTheSourceTableAgainstItself(Scenario scenario, @TempDir Path dir) {
    ScenarioTable source = scenario.write(dir);

    assertThat(source.expectations().snapshotRows()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(source.expectations().asOfTime()).isNotEmpty();
    verifier.verify(source, source.location());
  }

  @Test
  void appendsScenarioCarriesStatisticsFiles(@TempDir Path dir) {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    assertThat(source.expectations().table().statisticsSnapshotIds()).hasSize(1);
    assertThat(source.expectations().table().partitionStatisticsSnapshotIds()).hasSize(1);
  }

  @Test
  void sortOrderAndSpecEvolutionShowInTheWrittenFiles(@TempDir Path dir) {
    Table sorted = Scenario.SORT_ORDER_SET_THEN_APPENDS.write(dir.resolve("sorted")).table();
    assertThat(sorted.sortOrder().isSorted()).isTrue();
    assertThat(sorted.currentSnapshot().addedDataFiles(sorted.io()))
        .allSatisfy(f -> assertThat(f.sortOrderId()).isEqualTo(sorted.sortOrder().orderId()));

    Table evolved =
        Scenario.PARTITION_SPEC_EVOLVED_MID_HISTORY.write(dir.resolve("evolved")).table();
    assertThat(evolved.specs()).hasSize(3);
    Set<Integer> specIds = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = evolved.newScan().planFiles()) {
      tasks.forEach(task -> specIds.add(task.file().specId()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(specIds).containsExactlyInAnyOrder(0, 1, 2);
  }

  @Test
  void oldSnapshotsReadWithTheOldSchema(@TempDir Path dir) {
    ScenarioTable source = Scenario.COLUMN_ADDED_WITHOUT_SNAPSHOT_THEN_APPENDS.write(dir);
    List<List<String>> rows = new ArrayList<>(source.expectations().snapshotRows().values());

    assertThat(rows.get(0)).allSatisfy(row -> assertThat(row).doesNotContain("extra="));
    assertThat(rows.get(rows.size() - 1)).anySatisfy(row -> assertThat(row).contains("extra=40"));
  }

  @Test
  void rowLevelDeletesIncludeSingleFilePositionDeletesInParquetAndAvro(@TempDir Path dir) {
    ScenarioTable source = Scenario.ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY.write(dir);
    List<DeleteFile> deletes = liveDeletes(source.table());
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();

    // Parquet delete files carry metrics: one referencing a single data file has equal bounds
    assertThat(deletes)
        .anySatisfy(
            d -> {
              assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES);
              assertThat(d.format()).isEqualTo(FileFormat.PARQUET);
              assertThat(bound(d.lowerBounds(), pathId)).isEqualTo(bound(d.upperBounds(), pathId));
            })
        // Avro delete files carry no metrics in 1.12; record_count 1 means one data file here
        .anySatisfy(
            d -> {
              assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES);
              assertThat(d.format()).isEqualTo(FileFormat.AVRO);
              assertThat(d.recordCount()).isEqualTo(1);
            })
        .anySatisfy(d -> assertThat(d.content()).isEqualTo(FileContent.EQUALITY_DELETES));
  }

  private static String bound(java.util.Map<Integer, java.nio.ByteBuffer> bounds, int fieldId) {
    assertThat(bounds).containsKey(fieldId);
    return Conversions.fromByteBuffer(MetadataColumns.DELETE_FILE_PATH.type(), bounds.get(fieldId))
        .toString();
  }

  @Test
  void v3ScenariosWriteDeletionVectorsAndRowLineage(@TempDir Path dir) {
    for (Scenario scenario :
        List.of(
            Scenario.V3_DELETION_VECTORS_AND_ROW_LINEAGE, Scenario.V2_UPGRADED_TO_V3_MID_HISTORY)) {
      ScenarioTable source = scenario.write(dir.resolve(scenario.name()));
      Table table = source.table();
      assertThat(((HasTableOperations) table).operations().current().formatVersion()).isEqualTo(3);
      assertThat(liveDeletes(table))
          .anySatisfy(d -> assertThat(d.format()).isEqualTo(FileFormat.PUFFIN));
      assertThat(table.currentSnapshot().firstRowId()).isNotNull();
      assertThat(source.expectations().table().nextRowId()).isPositive();
      assertThat(source.expectations().lineageRows().values())
          .anySatisfy(
              rows -> assertThat(rows).anySatisfy(r -> assertThat(r).contains("_row_id=0")));
    }
  }

  @Test
  void upgradedTableKeepsItsV2PositionDeletes(@TempDir Path dir) {
    ScenarioTable source = Scenario.V2_UPGRADED_TO_V3_MID_HISTORY.write(dir);
    assertThat(liveDeletes(source.table()))
        .anySatisfy(d -> assertThat(d.format()).isEqualTo(FileFormat.PARQUET));
  }

  @Test
  void verifierFailsOnAVerbatimCopyThatStillPointsAtTheSource(@TempDir Path dir)
      throws IOException {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    Path replica = dir.resolve("replica");
    copyTree(Paths.get(ReplicaVerifier.localPath(source.location())), replica);

    // the copy reads the right rows (through the source's files), only its paths are wrong
    assertThat(verifier.readProblems(source.expectations(), replica.toString())).isEmpty();
    assertThatThrownBy(() -> verifier.verify(source, replica.toString()))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("mentions a source path")
        .hasMessageContaining("points under the source location");
  }

  @Test
  void verifierFailsWhenOneDataFileReadsOtherRows(@TempDir Path dir) throws IOException {
    ScenarioTable source = Scenario.OVERWRITE_AND_COMPACTION_REWRITE.write(dir);
    Table table = source.table();
    // the last append wrote one file holding the single row (6, f, x)
    DataFile victim = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
    assertThat(victim.recordCount()).isEqualTo(1);
    // same shape, one letter changed: the file keeps its size, only its rows differ
    DataFile impostor = source.writeDataFile(List.of(source.row(6, "q", "x")));
    Path victimPath = Paths.get(ReplicaVerifier.localPath(victim.location()));
    Files.copy(
        Paths.get(ReplicaVerifier.localPath(impostor.location())),
        victimPath,
        StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(victimPath.resolveSibling("." + victimPath.getFileName() + ".crc"));

    assertThat(verifier.fileProblems(source.location(), source.location())).isEmpty();
    assertThatThrownBy(() -> verifier.verify(source, source.location()))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "snapshot " + table.currentSnapshot().snapshotId() + " (append, seq 6): rows differ")
        .hasMessageContaining("unexpected [{id=6, data=q, category=x}]");
  }

  /**
   * Pretends the table's data directory is the "source": every data file reference then points
   * under the source, including those inside position delete files and deletion vectors.
   */
  @ParameterizedTest
  @EnumSource(
      value = Scenario.class,
      names = {
        "ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY",
        "V2_UPGRADED_TO_V3_MID_HISTORY",
        "V3_DELETION_VECTORS_WITH_LZ4_COMPRESSED_PUFFIN_FOOTERS",
        "ORC_DATA_AND_POSITION_DELETES"
      })
  void verifierLooksInsideDeleteFilesAndDeletionVectors(Scenario scenario, @TempDir Path dir) {
    ScenarioTable source = scenario.write(dir);
    String dataDir = ReplicaVerifier.localPath(source.location()) + "/data";

    List<String> problems = verifier.fileProblems(dataDir, source.location());

    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .matches(
                        "manifest .* live entry .* file_path points under the source location: .*"));
    if (scenario == Scenario.ORC_DATA_AND_POSITION_DELETES) {
      assertThat(problems)
          .anySatisfy(
              p ->
                  assertThat(p)
                      .matches(
                          "position delete file .*\\.orc file_path points under the source location: .*"));
      return;
    }
    if (scenario != Scenario.V3_DELETION_VECTORS_WITH_LZ4_COMPRESSED_PUFFIN_FOOTERS) {
      assertThat(problems)
          .anySatisfy(
              p ->
                  assertThat(p)
                      .matches(
                          "position delete file .*\\.parquet file_path points under the source location: .*"));
    }
    if (scenario != Scenario.ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY) {
      assertThat(problems)
          .anySatisfy(
              p ->
                  assertThat(p)
                      .matches(
                          "manifest .* referenced_data_file points under the source location: .*"))
          .anySatisfy(
              p ->
                  assertThat(p)
                      .matches(
                          "deletion vector file .* referenced-data-file points under the source location: .*"));
    } else {
      assertThat(problems)
          .anySatisfy(
              p ->
                  assertThat(p)
                      .matches(
                          "position delete file .*\\.avro file_path points under the source location: .*"));
    }
  }

  @Test
  void verifierFailsWhenAManifestLengthIsWrong(@TempDir Path dir) throws IOException {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    Table table = source.table();
    String manifest = table.currentSnapshot().allManifests(table.io()).get(0).path();
    Path manifestPath = Paths.get(ReplicaVerifier.localPath(manifest));
    Files.write(manifestPath, new byte[] {0}, java.nio.file.StandardOpenOption.APPEND);

    assertThat(verifier.fileProblems(source.location(), source.location()))
        .anySatisfy(p -> assertThat(p).contains("manifest_length of " + manifest));
  }

  static List<DeleteFile> liveDeletes(Table table) {
    List<DeleteFile> deletes = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile d : task.deletes()) {
          if (deletes.stream().noneMatch(x -> x.location().equals(d.location()))) {
            deletes.add(d);
          }
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return deletes;
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
