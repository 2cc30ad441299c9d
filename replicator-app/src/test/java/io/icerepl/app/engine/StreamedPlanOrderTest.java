package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.fixtures.RecordingStore;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streamed copy plan keeps the publish order on a table with more files than the copier holds
 * at a time: every manifest is written after every file it names, every manifest list after every
 * manifest it names, the metadata file after all of them; and copying runs while planning goes on,
 * so some manifest is in place before the last data file is copied.
 */
class StreamedPlanOrderTest {
  private static final int MANIFESTS = 12;
  private static final int FILES_PER_MANIFEST = 150;

  @TempDir Path dir;

  /**
   * Two fast appends of manifests written with Iceberg's manifest writer, each naming empty
   * placeholder data files of their recorded size: the order of writes is what is checked here, not
   * the rows.
   */
  private String writeSource() throws IOException {
    String location = dir.resolve("source").toUri().toString();
    Table table =
        SourceTable.TABLES.create(
            SourceTable.SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"),
            location);
    for (int half = 0; half < 2; half++) {
      AppendFiles append = table.newFastAppend();
      for (int m = half * MANIFESTS / 2; m < (half + 1) * MANIFESTS / 2; m++) {
        Path folder = Files.createDirectories(dir.resolve("source/data/m" + m));
        ManifestWriter<DataFile> writer =
            ManifestFiles.write(
                2,
                table.spec(),
                table.io().newOutputFile(location + "/metadata/placeholders-m" + m + ".avro"),
                null);
        try (writer) {
          for (int f = 0; f < FILES_PER_MANIFEST; f++) {
            Path file = Files.createFile(folder.resolve("f" + f + ".parquet"));
            writer.add(
                DataFiles.builder(table.spec())
                    .withPath(file.toUri().toString())
                    .withFormat(FileFormat.PARQUET)
                    .withFileSizeInBytes(0)
                    .withRecordCount(1)
                    .build());
          }
        }
        append.appendManifest(writer.toManifestFile());
      }
      append.commit();
    }
    return location;
  }

  @Test
  void eachManifestFollowsItsFilesEachListItsManifestsAndCopyingOverlapsPlanning()
      throws IOException {
    String source = writeSource();
    String replica = dir.resolve("replica").toUri().toString();
    RecordingStore target = new RecordingStore();
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      TableReplicator.builder(
              new LocalObjectStore(), target, executor, ReplicationOptions.defaults())
          .clock(Clock.systemUTC())
          .build()
          .replicate(source, replica, Optional.empty());
    } finally {
      executor.shutdownNow();
    }

    // each write as it completed; a create that found its file there counts as one too
    List<String> writes =
        target.ended("write", "createIfAbsent", "copyFrom").stream()
            .filter(call -> call.outcome() != RecordingStore.Outcome.FAILED)
            .map(RecordingStore.Call::path)
            .toList();
    List<String> manifests =
        writes.stream().filter(p -> p.contains("/metadata/placeholders-m")).toList();
    List<String> lists = writes.stream().filter(p -> p.contains("/metadata/snap-")).toList();
    List<String> dataFiles = writes.stream().filter(p -> p.endsWith(".parquet")).toList();
    assertThat(manifests).hasSize(MANIFESTS);
    assertThat(lists).hasSize(2);
    assertThat(dataFiles).hasSize(MANIFESTS * FILES_PER_MANIFEST).doesNotHaveDuplicates();

    for (String manifest : manifests) {
      List<ManifestEntry> named;
      try (InputStream in = target.open(manifest)) {
        named = ManifestRewriter.readLiveFiles(in, manifest);
      }
      assertThat(named).hasSize(FILES_PER_MANIFEST);
      for (ManifestEntry entry : named) {
        assertThat(writes.indexOf(entry.filePath()))
            .as("%s, named by %s", entry.filePath(), manifest)
            .isBetween(0, writes.indexOf(manifest) - 1);
      }
    }
    for (String list : lists) {
      List<ManifestListEntry> named;
      try (InputStream in = target.open(list)) {
        named = ManifestListRewriter.read(in, list);
      }
      for (ManifestListEntry entry : named) {
        assertThat(writes.indexOf(entry.manifestPath()))
            .as("%s, named by %s", entry.manifestPath(), list)
            .isBetween(0, writes.indexOf(list) - 1);
      }
    }
    int metadataFile = writes.indexOf(replica + "/metadata/v1.metadata.json");
    assertThat(writes.subList(metadataFile + 1, writes.size()))
        .allSatisfy(p -> assertThat(p).endsWith("/version-hint.text"));
    assertThat(writes.indexOf(manifests.get(0)))
        .as("the first manifest in place, against the last data file copied")
        .isLessThan(writes.indexOf(dataFiles.get(dataFiles.size() - 1)));
  }
}
