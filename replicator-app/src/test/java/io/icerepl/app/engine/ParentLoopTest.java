package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table whose history was hand-edited so that two snapshots name each other as parent, end to
 * end: written with the Iceberg library, then edited. {@code replicate} and {@code backfill} refuse
 * it with the reason, naming the file, and leave its replica as it was while another table goes on;
 * {@code verify} reports a replica edited so; {@code promote} refuses one before recording
 * anything. Before the graph was checked where metadata is read, each of these went ahead.
 */
class ParentLoopTest {
  @TempDir Path dir;

  private record Result(int exitCode, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }

  private static SourceTable twoCommits(Path location) {
    SourceTable source = SourceTable.create(location, 2);
    source.append("a", 3);
    source.append("b", 2);
    return source;
  }

  /** The first snapshot, then the second, of a two-commit table. */
  private static long[] firstAndSecond(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    return new long[] {snapshots.get(0).snapshotId(), snapshots.get(1).snapshotId()};
  }

  private static String cycle(long[] ids) {
    return "snapshots " + ids[0] + " and " + ids[1] + " name each other as parent (a cycle)";
  }

  /** {@code json} with the first snapshot naming the second, its child, as parent. */
  private static ObjectNode looped(ObjectNode json, long[] ids) {
    for (var snapshot : json.withArray("snapshots")) {
      if (snapshot.get("snapshot-id").asLong() == ids[0]) {
        ((ObjectNode) snapshot).put("parent-snapshot-id", ids[1]);
      }
    }
    return json;
  }

  private static int version(Path metadata) throws IOException {
    return Integer.parseInt(Files.readString(metadata.resolve("version-hint.text")).trim());
  }

  private static ObjectNode json(Path file) throws IOException {
    return (ObjectNode) TableMetadataParser.mapper().readTree(file.toFile());
  }

  /** Commits the source's current metadata, looped, as its next version, as a hand edit would. */
  private static Path commitLooped(SourceTable source) throws IOException {
    Path metadata = Path.of(java.net.URI.create(source.location)).resolve("metadata");
    int version = version(metadata);
    Path current = metadata.resolve("v" + version + ".metadata.json");
    ObjectNode json = looped(json(current), firstAndSecond(source.table));
    json.withArray("metadata-log")
        .addObject()
        .put("timestamp-ms", json.get("last-updated-ms").asLong())
        .put("metadata-file", current.toUri().toString());
    Path next = metadata.resolve("v" + (version + 1) + ".metadata.json");
    Files.write(next, TableMetadataParser.mapper().writeValueAsBytes(json));
    Files.writeString(metadata.resolve("version-hint.text"), Integer.toString(version + 1));
    return next;
  }

  /** Loops the replica's current version in place, as a hand edit of the replica would. */
  private static Path loopReplicaInPlace(Path replica, long[] ids) throws IOException {
    Path metadata = replica.resolve("metadata");
    Path current = metadata.resolve("v" + version(metadata) + ".metadata.json");
    Files.write(
        current, TableMetadataParser.mapper().writeValueAsBytes(looped(json(current), ids)));
    return current;
  }

  @Test
  void replicateRefusesASourceWhoseParentsLoopAndLeavesTheReplicaAsItWas() throws IOException {
    SourceTable source = twoCommits(dir.resolve("source"));
    Path replicaDir = dir.resolve("replica");
    String replica = replicaDir.toUri().toString();
    assertThat(run("replicate", "--source", source.location, "--target", replica).exitCode)
        .isZero();
    Map<String, String> before = contents(replicaDir);
    Path looped = commitLooped(source);

    Result result = run("replicate", "--source", source.location, "--target", replica);

    assertThat(result.exitCode).as(result.out + result.err).isEqualTo(1);
    assertThat(result.err)
        .contains(
            "Cannot read table metadata "
                + looped.toUri()
                + ": "
                + cycle(firstAndSecond(source.table)));
    assertThat(contents(replicaDir)).as("replica files after the refused run").isEqualTo(before);
  }

  @Test
  void backfillRefusesTheLoopedTableAndReplicatesTheOther() throws IOException {
    SourceTable good = twoCommits(dir.resolve("wh/ns/good"));
    SourceTable bad = twoCommits(dir.resolve("wh/ns/looped"));
    Path looped = commitLooped(bad);
    Path config = dir.resolve("replicator.yml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "replicator:",
            "  settle-time: 0s",
            "  rules:",
            "    - name: one",
            "      source: '" + dir.resolve("wh") + "'",
            "      targets: [{name: dr, prefix: '" + dir.resolve("dr") + "'}]",
            ""));

    Result result = run("backfill", "--config", config.toString());

    assertThat(result.exitCode).as(result.out + result.err).isEqualTo(1);
    assertThat(result.out)
        .contains("one:ns/looped -> dr")
        .contains(looped + ": " + cycle(firstAndSecond(bad.table)))
        .contains("1 replicated, 0 already up to date, 1 failed");
    assertThat(contents(dir.resolve("dr/ns/looped"))).isEmpty();
    Table replica = SourceTable.TABLES.load(dir.resolve("dr/ns/good").toUri().toString());
    for (Snapshot snapshot : good.table.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(good.table, snapshot.snapshotId()));
    }
  }

  @Test
  void verifyReportsAReplicaWhoseParentsLoop() throws IOException {
    SourceTable source = twoCommits(dir.resolve("source"));
    Path replicaDir = dir.resolve("replica");
    String replica = replicaDir.toUri().toString();
    assertThat(run("replicate", "--source", source.location, "--target", replica).exitCode)
        .isZero();
    assertThat(run("verify", "--target", replica).exitCode).isZero();
    long[] ids = firstAndSecond(source.table);
    loopReplicaInPlace(replicaDir, ids);

    Result result = run("verify", "--target", replica);

    assertThat(result.exitCode).as(result.out + result.err).isEqualTo(1);
    assertThat(result.out).contains(cycle(ids)).doesNotContain(" 0 problems");
  }

  @Test
  void promoteRefusesAReplicaWhoseParentsLoopAndRecordsNothing() throws IOException {
    SourceTable source = twoCommits(dir.resolve("source"));
    Path replicaDir = dir.resolve("replica");
    String replica = replicaDir.toUri().toString();
    assertThat(run("replicate", "--source", source.location, "--target", replica).exitCode)
        .isZero();
    long[] ids = firstAndSecond(source.table);
    Path edited = loopReplicaInPlace(replicaDir, ids);
    Map<String, String> before = contents(replicaDir);

    Result result = run("promote", "--mode", "now", "--target", replica);

    assertThat(result.exitCode).as(result.out + result.err).isEqualTo(1);
    assertThat(result.err).contains(edited.getFileName().toString()).contains(cycle(ids));
    assertThat(contents(replicaDir))
        .as("replica files after the refused promotion")
        .isEqualTo(before);
  }

  /** Fail-back reads the old source's lines of history: a looped one is refused, untouched. */
  @Test
  void failbackRefusesAnOldSourceWhoseParentsLoopAndLeavesItAsItWas() throws IOException {
    SourceTable source = twoCommits(dir.resolve("original"));
    String promoted = dir.resolve("promoted").toUri().toString();
    assertThat(run("replicate", "--source", source.location, "--target", promoted).exitCode)
        .isZero();
    assertThat(run("promote", "--mode", "now", "--target", promoted).exitCode).isZero();
    long[] ids = firstAndSecond(source.table);
    Path edited = loopReplicaInPlace(dir.resolve("original"), ids);
    Map<String, String> before = contents(dir.resolve("original"));

    Result result = run("failback", "--primary", promoted, "--old-source", source.location);

    assertThat(result.exitCode).as(result.out + result.err).isEqualTo(1);
    assertThat(result.err).contains(edited.getFileName().toString()).contains(cycle(ids));
    assertThat(contents(dir.resolve("original"))).as("the old source after").isEqualTo(before);
  }

  /**
   * The group cut (run by the service's scheduler and its group API) names the looped table as what
   * holds the cut back. Before, it walked the loop for ever: the timeout turns that into a failure.
   */
  @Test
  void theGroupCutNamesTheLoopedReplicaInsteadOfWalkingIt() throws IOException {
    SourceTable good = twoCommits(dir.resolve("wh/ns/good"));
    SourceTable bad = twoCommits(dir.resolve("wh/ns/looped"));
    for (SourceTable source : List.of(good, bad)) {
      String table = source == good ? "ns/good" : "ns/looped";
      assertThat(
              run(
                      "replicate",
                      "--source",
                      source.location,
                      "--target",
                      dir.resolve("dr/" + table).toUri().toString())
                  .exitCode)
          .isZero();
    }
    long[] ids = firstAndSecond(bad.table);
    Path edited = loopReplicaInPlace(dir.resolve("dr/ns/looped"), ids);
    // known current since before either table's first commit: main then is found by its parents
    long before = bad.table.snapshot(ids[0]).timestampMillis() - 60_000;
    LocalObjectStore local = new LocalObjectStore();
    StoreFactory stores =
        new StoreFactory() {
          @Override
          public ObjectStore sourceStore(String location) {
            return local;
          }

          @Override
          public ObjectStore targetStore(String location) {
            return local;
          }
        };
    List<GroupCutReader.Member> members = new ArrayList<>();
    for (String table : List.of("ns/good", "ns/looped")) {
      members.add(
          GroupCutReader.Member.of(
              table,
              Optional.of(
                  new TableKey(
                      "one",
                      "dr",
                      table,
                      dir.resolve("wh/" + table).toString(),
                      dir.resolve("dr/" + table).toString(),
                      Optional.empty(),
                      Optional.empty()))));
    }

    GroupCutReader.Report report =
        assertTimeoutPreemptively(
            Duration.ofSeconds(30),
            () ->
                new GroupCutReader(stores, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES)
                    .read("g", "g", members, Duration.ZERO, Instant.ofEpochMilli(before)));

    assertThat(report.cut()).isNull();
    assertThat(report.heldBackBy()).isEqualTo("ns/looped");
    assertThat(report.reason())
        .startsWith("its replica cannot be read: Cannot read table metadata ")
        .contains(edited.getFileName().toString())
        .endsWith(cycle(ids));
  }

  private static Map<String, String> contents(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    if (!Files.exists(root)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(p).toString(), sha256(Files.readAllBytes(p)));
      }
    }
    return files;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
