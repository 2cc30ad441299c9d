package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.CliRun;
import io.icerepl.app.engine.SourceTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fail-back writes the promoted table's deletes against the original's own files in the spelling
 * the original's manifests use: Iceberg matches a position delete's {@code file_path} to a data
 * file by exact string, so a delete naming {@code file:///p/x} leaves {@code file:/p/x} unfiltered.
 */
class FailbackPathSpellingTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"file:///", "/", "file:/"})
  void aPositionDeleteOnThePromotedTableAppliesInTheOriginalWhicheverWayItIsSpelled(
      String spelling) {
    SourceTable source = SourceTable.create(dir.resolve("original"), 2);
    source.append("a", 4);
    source.append("b", 3);
    String promotedLocation = dir.resolve("promoted").toUri().toString();
    assertThat(
            CliRun.of("replicate", "--source", source.location, "--target", promotedLocation)
                .exit())
        .isZero();
    assertThat(CliRun.of("promote", "--target", promotedLocation, "--mode", "now").exit()).isZero();

    // a row the original wrote, deleted on the promoted table by position
    SourceTable promoted = SourceTable.open(promotedLocation, 1_000);
    DataFile replicated = dataFiles(promoted.table).get(0);
    promoted.deletePositions(replicated, 1);
    promoted.table.refresh();
    List<Long> expected = ids(promoted.table);
    assertThat(expected).hasSize(6).doesNotContain(ids(replicated, source.table).get(1));

    String oldSource = spelled(dir.resolve("original"), spelling);
    CliRun failback =
        CliRun.of("failback", "--primary", promotedLocation, "--old-source", oldSource);

    assertThat(failback.exit()).as(failback.out() + failback.err()).isZero();
    Table original = SourceTable.TABLES.load(source.location);
    assertThat(original.currentSnapshot().snapshotId())
        .isEqualTo(promoted.table.currentSnapshot().snapshotId());
    assertThat(ids(original)).isEqualTo(expected);
    CliRun verify = CliRun.of("verify", "--source", promotedLocation, "--target", oldSource);
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
  }

  private static String spelled(Path path, String spelling) {
    String plain = path.toAbsolutePath().toString();
    return spelling.equals("/") ? plain : spelling.substring(0, spelling.length() - 1) + plain;
  }

  /** The ids a table reads at its current snapshot, sorted. */
  private static List<Long> ids(Table table) {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> ids.add((Long) r.getField("id")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ids.sort(null);
    return ids;
  }

  /** The ids one data file holds, in file order. */
  private static List<Long> ids(DataFile file, Table table) {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(s -> GenericParquetReaders.buildReader(table.schema(), s))
            .build()) {
      records.forEach(r -> ids.add((Long) r.getField("id")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  private static List<DataFile> dataFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
