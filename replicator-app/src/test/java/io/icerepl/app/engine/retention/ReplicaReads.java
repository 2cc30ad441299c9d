package io.icerepl.app.engine.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.copier.store.LocalObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;

/**
 * What a replica reads back with the Iceberg library, checked against rows recorded at the source.
 */
final class ReplicaReads {
  private ReplicaReads() {}

  /**
   * Every snapshot the replica holds reads the rows the source's snapshot read, every ref of the
   * source is on the replica at the same snapshot, and no file the replica reaches is missing or
   * under the source location.
   */
  static void assertReadsAsRecorded(
      Table replica, Map<Long, List<String>> recorded, Table source, String sourceLocation) {
    assertReadsAsRecorded(replica, recorded, source, sourceLocation, Map.of());
  }

  /**
   * As above, except that a source ref the replica's retention dropped (named in {@code
   * droppedRefs} with the snapshot it pointed at) may be missing while the source's ref still
   * points there.
   */
  static void assertReadsAsRecorded(
      Table replica,
      Map<Long, List<String>> recorded,
      Table source,
      String sourceLocation,
      Map<String, Long> droppedRefs) {
    replica.refresh();
    source.refresh();
    for (var snapshot : replica.snapshots()) {
      assertThat(recorded)
          .as("recorded rows of snapshot %s", snapshot.snapshotId())
          .containsKey(snapshot.snapshotId());
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .as("rows of snapshot %s on the replica", snapshot.snapshotId())
          .isEqualTo(recorded.get(snapshot.snapshotId()));
    }
    for (Map.Entry<String, SnapshotRef> ref : source.refs().entrySet()) {
      SnapshotRef replicaRef = replica.refs().get(ref.getKey());
      if (replicaRef == null
          && Long.valueOf(ref.getValue().snapshotId()).equals(droppedRefs.get(ref.getKey()))) {
        continue;
      }
      assertThat(replicaRef).as("ref %s on the replica", ref.getKey()).isNotNull();
      assertThat(replicaRef.snapshotId())
          .as("snapshot of ref %s", ref.getKey())
          .isEqualTo(ref.getValue().snapshotId());
      assertThat(SourceTable.rows(replica, replicaRef.snapshotId()))
          .as("rows of ref %s on the replica", ref.getKey())
          .isEqualTo(SourceTable.rows(source, ref.getValue().snapshotId()));
    }
    String sourcePath = LocalObjectStore.toPath(sourceLocation).toString();
    for (String file : reachableFiles(replica)) {
      assertThat(LocalObjectStore.toPath(file).toString())
          .as("replica file")
          .doesNotStartWith(sourcePath);
      assertThat(Files.exists(LocalObjectStore.toPath(file)))
          .as("file %s of a replica snapshot", file)
          .isTrue();
    }
  }

  /**
   * Every file a snapshot of the table reaches: manifest lists, manifests and live entries' files.
   */
  static Set<String> reachableFiles(Table table) {
    Set<String> files = new HashSet<>();
    for (var snapshot : table.snapshots()) {
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        files.add(manifest.path());
        try {
          if (manifest.content() == ManifestContent.DATA) {
            try (var reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
              reader.forEach(f -> files.add(f.location()));
            }
          } else {
            try (var reader =
                ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
              reader.forEach(f -> files.add(f.location()));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return files;
  }
}
