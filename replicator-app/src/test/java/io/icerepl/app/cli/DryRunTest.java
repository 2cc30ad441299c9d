package io.icerepl.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.SourceTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replicate --dry-run} writes nothing and says what the run would do, for a first backfill
 * and for an increment of several versions. "Nothing" is every byte: each file of an existing
 * replica (its metadata, its version hint, its state) is byte for byte as before and not written
 * again, none added, none removed. "What the run would do" is checked against what the replica
 * holds after the real run, listed from disk and classified with the source's own metadata read by
 * Iceberg, not against the real run's report: the dry run and the run share their planner, so a
 * file the planner forgets would be missing from both reports alike.
 */
class DryRunTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static JsonNode replicate(String source, String target, boolean dryRun) throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> args =
        new ArrayList<>(
            List.of(
                "replicate",
                "--source",
                source,
                "--target",
                target,
                "--settle-time",
                "0ms",
                "--json"));
    if (dryRun) {
      args.add("--dry-run");
    }
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    assertThat(exit).as(err.toString()).isZero();
    return JSON.readTree(out.toString());
  }

  @Test
  void aDryRunWritesNothingAndForetellsTheRun() throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 2);
    source.deletePositions(source.append("c", 4), 1);
    Path replica = dir.resolve("replica");

    JsonNode planned = replicate(source.location, replica.toString(), true);
    assertThat(planned.get("dryRun").asBoolean()).isTrue();
    assertThat(replica).doesNotExist();
    JsonNode done = replicate(source.location, replica.toString(), false);
    assertSameFigures(planned, done);
    assertForetold(planned, source, replica, Map.of());
    assertThat(planned.get("snapshotsAdded").asInt()).isEqualTo(count(source.table.snapshots()));

    // an increment of two versions, one of them with a delete file, each file counted once
    source.append("d", 1);
    source.deletePositions(source.append("e", 3), 0, 2);
    Map<String, byte[]> before = contents(replica);
    Map<String, FileTime> written = modified(replica);
    assertThat(before).containsKey("metadata/.replicator-state.json");
    JsonNode increment = replicate(source.location, replica.toString(), true);
    assertSameBytes(contents(replica), before);
    assertThat(modified(replica)).as("the replica's files, none written again").isEqualTo(written);
    assertThat(increment.get("versionsApplied").asInt()).isEqualTo(3);
    assertThat(increment.get("snapshotsAdded").asInt()).isEqualTo(3);
    assertSameFigures(increment, replicate(source.location, replica.toString(), false));
    assertForetold(increment, source, replica, before);
  }

  /** Every file as it was, byte for byte: none changed, none added, none removed. */
  private static void assertSameBytes(Map<String, byte[]> after, Map<String, byte[]> before) {
    assertThat(after.keySet()).as("the replica's files after a dry run").isEqualTo(before.keySet());
    before.forEach(
        (file, bytes) ->
            assertThat(Arrays.equals(after.get(file), bytes))
                .as("%s after a dry run is byte for byte as before", file)
                .isTrue());
  }

  private static void assertSameFigures(JsonNode planned, JsonNode done) {
    for (String figure :
        List.of(
            "versionsApplied", "snapshotsAdded", "filesCopied", "bytesCopied", "filesRewritten")) {
      assertThat(planned.get(figure).asLong()).as(figure).isEqualTo(done.get(figure).asLong());
    }
    assertThat(planned.get("replicaMetadataFiles")).isEqualTo(done.get("replicaMetadataFiles"));
  }

  /**
   * The dry run's figures are what the real run left in the replica, beyond the files it held
   * {@code before}: the files the source's metadata names (manifest lists, manifests, data and
   * delete files) are all there, data files byte for byte ("copied", with their bytes), the others
   * with replica paths in them ("rewritten"); the metadata files are the new {@code
   * vN.metadata.json} on disk, the snapshots those the replica's metadata gained.
   */
  private static void assertForetold(
      JsonNode planned, SourceTable source, Path replica, Map<String, byte[]> before)
      throws IOException {
    Path sourceRoot = local(source.location);
    Map<String, String> named = namedBySource(source.table, sourceRoot);
    Map<String, byte[]> after = contents(replica);

    Set<String> added = new TreeSet<>(after.keySet());
    added.removeAll(before.keySet());
    Set<String> addedMetadata = new TreeSet<>();
    Set<String> addedContent = new TreeSet<>();
    for (String file : added) {
      if (file.endsWith(".metadata.json")) {
        addedMetadata.add(file);
      } else if (!file.equals("metadata/version-hint.text")
          && !file.equals("metadata/.replicator-state.json")) {
        addedContent.add(file);
      }
    }
    Set<String> expected = new TreeSet<>(named.keySet());
    expected.removeAll(before.keySet());
    assertThat(addedContent)
        .as("the files the run added besides metadata, version hint and state")
        .isEqualTo(expected);

    long copied = 0;
    long copiedBytes = 0;
    long rewritten = 0;
    Map<String, Integer> kinds = new TreeMap<>();
    for (String file : addedContent) {
      byte[] replicaBytes = after.get(file);
      String kind = named.get(file);
      kinds.merge(kind, 1, Integer::sum);
      if (Arrays.equals(replicaBytes, Files.readAllBytes(sourceRoot.resolve(file)))) {
        copied++;
        copiedBytes += replicaBytes.length;
        assertThat(kind).as("%s copied byte for byte", file).isEqualTo("data");
      } else {
        rewritten++;
        assertThat(kind).as("%s rewritten", file).isNotEqualTo("data");
      }
    }
    assertThat(kinds)
        .as("files added, by kind")
        .containsKeys("data", "deletes", "manifest", "list");
    assertThat(planned.get("filesCopied").asLong()).as("files copied").isEqualTo(copied);
    assertThat(planned.get("bytesCopied").asLong()).as("bytes copied").isEqualTo(copiedBytes);
    assertThat(planned.get("filesRewritten").asLong()).as("files rewritten").isEqualTo(rewritten);

    List<String> plannedMetadata = new ArrayList<>();
    planned.get("replicaMetadataFiles").forEach(f -> plannedMetadata.add(f.asText()));
    assertThat(plannedMetadata.stream().map(f -> Path.of(f).getFileName().toString()).sorted())
        .as("the metadata files the run wrote")
        .containsExactlyElementsOf(
            addedMetadata.stream().map(f -> Path.of(f).getFileName().toString()).toList());
    assertThat(planned.get("versionsApplied").asInt()).isEqualTo(addedMetadata.size());
    Table read = SourceTable.TABLES.load(replica.toString());
    Set<Long> snapshots = new TreeSet<>();
    read.snapshots().forEach(s -> snapshots.add(s.snapshotId()));
    assertThat(planned.get("snapshotsAdded").asInt())
        .as("snapshots the replica gained")
        .isEqualTo(snapshots.size() - snapshotsIn(before));
  }

  /** How many snapshots the replica held before: those of its newest metadata file then. */
  private static int snapshotsIn(Map<String, byte[]> before) throws IOException {
    String newest =
        before.keySet().stream()
            .filter(f -> f.endsWith(".metadata.json"))
            .max(
                (a, b) ->
                    Integer.compare(
                        version(Path.of(a).getFileName().toString()),
                        version(Path.of(b).getFileName().toString())))
            .orElse(null);
    if (newest == null) {
      return 0;
    }
    JsonNode snapshots = JSON.readTree(before.get(newest)).get("snapshots");
    return snapshots == null ? 0 : snapshots.size();
  }

  private static int version(String metadataFile) {
    return Integer.parseInt(metadataFile.substring(1, metadataFile.indexOf('.')));
  }

  /**
   * Every file the source's snapshots name, relative to its location, with its kind: "list",
   * "manifest", "data" or "deletes"; read by Iceberg, so independently of the replicator's planner.
   */
  private static Map<String, String> namedBySource(Table table, Path root) throws IOException {
    Map<String, String> named = new TreeMap<>();
    for (Snapshot snapshot : table.snapshots()) {
      named.put(relative(root, snapshot.manifestListLocation()), "list");
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        named.put(relative(root, manifest.path()), "manifest");
        if (manifest.content() == ManifestContent.DATA) {
          try (CloseableIterable<DataFile> files =
              ManifestFiles.read(manifest, table.io(), table.specs())) {
            files.forEach(f -> named.put(relative(root, f.location()), "data"));
          }
        } else {
          try (CloseableIterable<DeleteFile> files =
              ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
            files.forEach(f -> named.put(relative(root, f.location()), "deletes"));
          }
        }
      }
    }
    return named;
  }

  private static String relative(Path root, String location) {
    return root.relativize(local(location)).toString();
  }

  private static Path local(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  /** Every regular file under {@code root} with the time it was last written. */
  private static Map<String, FileTime> modified(Path root) throws IOException {
    Map<String, FileTime> modified = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        modified.put(root.relativize(file).toString(), Files.getLastModifiedTime(file));
      }
    }
    return modified;
  }

  /** Every regular file under {@code root} with its bytes, by its path relative to the root. */
  private static Map<String, byte[]> contents(Path root) throws IOException {
    Map<String, byte[]> contents = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        contents.put(root.relativize(file).toString(), Files.readAllBytes(file));
      }
    }
    return contents;
  }

  private static int count(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }
}
