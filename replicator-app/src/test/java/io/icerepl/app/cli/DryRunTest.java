package io.icerepl.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.SourceTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replicate --dry-run} writes nothing and says what the run would do: its figures are the
 * ones the real run then reports, for a first backfill and for an increment of several versions.
 */
class DryRunTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static JsonNode replicate(String source, String target, boolean dryRun) throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> args =
        new java.util.ArrayList<>(
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
    assertThat(planned.get("snapshotsAdded").asInt()).isEqualTo(count(source.table.snapshots()));

    // an increment of two versions, each file counted once
    source.append("d", 1);
    source.append("e", 2);
    List<Path> before = files(replica);
    JsonNode increment = replicate(source.location, replica.toString(), true);
    assertThat(files(replica)).as("the replica's files after a dry run").isEqualTo(before);
    assertThat(increment.get("versionsApplied").asInt()).isEqualTo(2);
    assertThat(increment.get("snapshotsAdded").asInt()).isEqualTo(2);
    assertSameFigures(increment, replicate(source.location, replica.toString(), false));
  }

  private static void assertSameFigures(JsonNode planned, JsonNode done) {
    for (String figure :
        List.of(
            "versionsApplied", "snapshotsAdded", "filesCopied", "bytesCopied", "filesRewritten")) {
      assertThat(planned.get(figure).asLong()).as(figure).isEqualTo(done.get(figure).asLong());
    }
    assertThat(planned.get("replicaMetadataFiles")).isEqualTo(done.get("replicaMetadataFiles"));
  }

  private static int count(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }

  private static List<Path> files(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.sorted().toList();
    }
  }
}
