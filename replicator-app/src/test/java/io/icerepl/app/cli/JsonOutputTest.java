package io.icerepl.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.SourceTable;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command's {@code --json} result is one JSON object on stdout, and what it says agrees with
 * the tables as Iceberg reads them: replicate, verify, expire, promote and fail back of one table,
 * then the errors, which are JSON too.
 */
class JsonOutputTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private record Run(int exit, String out, String err) {
    /** Stdout as the one JSON object it must be. */
    JsonNode json() throws Exception {
      List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
      assertThat(lines).as("stdout of a --json run: %s", out).hasSize(1);
      JsonNode json = JSON.readTree(lines.get(0));
      assertThat(keys(json))
          .as("the keys of %s", json)
          .allMatch(k -> k.matches("[a-z][a-zA-Z0-9]*"));
      return json;
    }
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void eachCommandsJsonResultAgreesWithWhatIcebergReads() throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 2);
    String replica = dir.resolve("replica").toUri().toString();

    Run replicate =
        run(
            "replicate",
            "--source",
            source.location,
            "--target",
            replica,
            "--settle-time",
            "0ms",
            "--json");
    assertThat(replicate.exit()).as(replicate.err()).isZero();
    JsonNode replicated = replicate.json();
    Table replicaTable = SourceTable.TABLES.load(replica);
    assertThat(replicated.get("snapshotsAdded").asInt())
        .isEqualTo(ids(source.table).size())
        .isEqualTo(ids(replicaTable).size());
    assertThat(replicated.get("replicaMetadataFiles"))
        .hasSize(replicated.get("versionsApplied").asInt());
    assertThat(replicated.get("filesCopied").asLong()).isGreaterThanOrEqualTo(2);
    assertThat(replicated.get("target").asText()).isEqualTo(replica);
    assertThat(replicated.get("lostSnapshots")).isEmpty();

    Run verify = run("verify", "--target", replica, "--source", source.location, "--json");
    assertThat(verify.exit()).as(verify.err()).isZero();
    JsonNode verified = verify.json();
    assertThat(verified.get("problems").asLong()).isZero();
    assertThat(verified.get("checked").asLong()).isPositive();
    assertThat(verified.get("problemLines")).isEmpty();

    long oldest = source.table.history().get(0).snapshotId();
    Run expire =
        run(
            "expire",
            "--target",
            replica,
            "--snapshot-ids",
            Long.toString(oldest),
            "--replica-owns-files",
            "--json");
    assertThat(expire.exit()).as(expire.err()).isZero();
    JsonNode expired = expire.json();
    assertThat(expired.get("expiredSnapshots")).hasSize(1);
    assertThat(expired.get("expiredSnapshots").get(0).asLong()).isEqualTo(oldest);
    assertThat(expired.get("expiredSnapshotsCount").asInt()).isEqualTo(1);
    assertThat(expired.get("filesKept").asBoolean()).isFalse();
    replicaTable.refresh();
    assertThat(ids(replicaTable)).doesNotContain(oldest).hasSize(1);

    Run promote = run("promote", "--target", replica, "--mode", "now", "--json");
    assertThat(promote.exit()).as(promote.err()).isZero();
    JsonNode promoted = promote.json();
    assertThat(promoted.get("epoch").asLong()).isEqualTo(1);
    assertThat(promoted.get("alreadyPromoted").asBoolean()).isFalse();
    assertThat(promoted.get("currentSnapshotId").asLong())
        .isEqualTo(source.table.currentSnapshot().snapshotId());

    // the promoted table takes a commit; the old source, too, after the failover: an orphan
    SourceTable.open(replica, 100).append("c", 1);
    source.append("d", 1);
    long orphan = source.table.currentSnapshot().snapshotId();
    Run failback =
        run(
            "failback",
            "--primary",
            replica,
            "--old-source",
            source.location,
            "--settle-time",
            "0ms",
            "--json");
    assertThat(failback.exit()).as(failback.err()).isZero();
    JsonNode failedBack = failback.json();
    assertThat(failedBack.get("orphanTags")).hasSize(1);
    assertThat(failedBack.get("orphanTags").get(0).get("snapshotId").asLong()).isEqualTo(orphan);
    Table original = SourceTable.TABLES.load(source.location);
    assertThat(original.refs())
        .containsKey(failedBack.get("orphanTags").get(0).get("name").asText());
    assertThat(original.currentSnapshot().snapshotId())
        .isEqualTo(SourceTable.TABLES.load(replica).currentSnapshot().snapshotId());
    assertThat(failedBack.get("replicaMetadataFiles")).isNotEmpty();
  }

  @Test
  void anErrorIsJsonOnStdoutAndOneLineOnStderr() throws Exception {
    String missing = dir.resolve("no-such-table").toString();
    Run failed =
        run("replicate", "--source", missing, "--target", dir.resolve("r").toString(), "--json");

    assertThat(failed.exit()).isEqualTo(1);
    JsonNode error = failed.json().get("error");
    assertThat(error.get("exitCode").asInt()).isEqualTo(1);
    assertThat(error.get("message").asText()).contains(missing);
    assertThat(failed.err().lines().toList())
        .singleElement()
        .isEqualTo("error: " + error.get("message").asText());

    Run refused = run("verify", "--target", dir.toString(), "--no-such-option", "--json");
    assertThat(refused.exit()).isEqualTo(2);
    JsonNode usage = JSON.readTree(refused.out().lines().findFirst().orElseThrow());
    assertThat(usage.get("error").get("exitCode").asInt()).isEqualTo(2);
    assertThat(usage.get("error").get("message").asText()).contains("--no-such-option");
  }

  @Test
  void withoutJsonTheResultIsAlignedLinesAndQuietDrawsNothingElse() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    String replica = dir.resolve("replica").toString();

    Run replicate =
        run(
            "replicate",
            "--source",
            source.location,
            "--target",
            replica,
            "--settle-time",
            "0ms",
            "--quiet");

    assertThat(replicate.exit()).as(replicate.err()).isZero();
    assertThat(replicate.out().lines())
        .isNotEmpty()
        .allMatch(line -> line.matches("[a-z][a-z ]{17} \\S.*"), "a label, then its value");
    assertThat(replicate.out()).contains("snapshots added    1");
    assertThat(replicate.err()).isEmpty();
  }

  /** Every object key in {@code node}, at any depth: one style, camelCase, for every command. */
  private static List<String> keys(JsonNode node) {
    List<String> keys = new java.util.ArrayList<>();
    node.fields()
        .forEachRemaining(
            e -> {
              keys.add(e.getKey());
              keys.addAll(keys(e.getValue()));
            });
    if (node.isArray()) {
      node.elements().forEachRemaining(e -> keys.addAll(keys(e)));
    }
    return keys;
  }

  private static Set<Long> ids(Table table) {
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .map(Snapshot::snapshotId)
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }
}
