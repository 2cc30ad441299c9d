package io.icerepl.app.engine.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/** The paths a table's snapshots name, as the Iceberg library reads them. */
public final class TablePaths {
  private TablePaths() {}

  /**
   * Each manifest list, manifest, data file and delete file of any snapshot of {@code table} that
   * is not under {@code location}, as a line naming the snapshot.
   */
  public static List<String> outside(Table table, FileIO io, String location) {
    List<String> outside = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      List<String> paths = new ArrayList<>();
      paths.add(snapshot.manifestListLocation());
      snapshot.allManifests(io).stream().map(ManifestFile::path).forEach(paths::add);
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          paths.add(task.file().location());
          task.deletes().forEach(d -> paths.add(d.location()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      paths.stream()
          .filter(p -> !p.startsWith(location + "/"))
          .forEach(p -> outside.add("snapshot " + snapshot.snapshotId() + " names " + p));
    }
    return outside;
  }
}
