package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.scenario.ReplicaVerifier;
import io.icerepl.copier.store.LocalObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fail-back after a failover: the source is replicated, its replica promoted and written on, the
 * old source commits twice more without them being replicated; failing back makes the original a
 * replica of the promoted table holding its whole history, and keeps the two orphan commits under
 * the tag the output names.
 */
class FailbackDrillTest {
  private static final Pattern TAG = Pattern.compile("orphan tag +(\\S+) -> (\\d+)");
  private static ExecutorService executor;

  @TempDir Path dir;
  private SourceTable source;
  private String promotedLocation;
  private SourceTable promoted;
  private Map<Long, List<String>> orphanRows;

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  @BeforeEach
  void failover() throws IOException {
    source = SourceTable.create(dir.resolve("original"), 2);
    source.append("a", 4);
    source.append("b", 3);
    promotedLocation = dir.resolve("promoted").toUri().toString();
    assertThat(cli("replicate", "--source", source.location, "--target", promotedLocation).exit)
        .isZero();
    Run promotion = cli("promote", "--target", promotedLocation, "--mode", "now");
    assertThat(promotion.exit).as(promotion.out + promotion.err).isZero();

    promoted = SourceTable.open(promotedLocation, 1_000);
    DataFile written = promoted.append("c", 3);
    promoted.deletePositions(written, 1);

    // the old source committed twice after its last replicated version
    source.append("a", 1);
    source.append("d", 2);
    source.table.refresh();
    orphanRows = new LinkedHashMap<>();
    for (Snapshot snapshot : source.table.snapshots()) {
      orphanRows.put(snapshot.snapshotId(), SourceTable.rows(source.table, snapshot.snapshotId()));
    }
  }

  @Test
  void theOriginalHoldsThePromotedHistoryAndTheOrphansUnderTheNamedTag() {
    long orphanHead = source.table.currentSnapshot().snapshotId();
    long orphanParent = source.table.currentSnapshot().parentId();

    Run run = failback();

    assertThat(run.exit).as(run.err).isZero();
    Map<String, Long> tags = tags(run.out);
    assertThat(tags).hasSize(1);
    String tag = tags.keySet().iterator().next();
    assertThat(tag).matches("failback-orphan-\\d{8}T\\d{6}Z");
    assertThat(tags.get(tag)).isEqualTo(orphanHead);
    assertThat(run.out).contains("orphan snapshots   [" + orphanParent + ", " + orphanHead + "]");

    Table original = SourceTable.TABLES.load(source.location);
    Table primary = SourceTable.TABLES.load(promotedLocation);
    assertHoldsThePromotedHistory(original, primary);
    // the orphan line reads at the tag, each orphan as the old source wrote it
    assertThat(original.refs().get(tag).isTag()).isTrue();
    assertThat(original.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
    for (long id : List.of(orphanHead, orphanParent)) {
      assertThat(SourceTable.rows(original, id)).isEqualTo(orphanRows.get(id));
    }
    assertThat(original.properties()).containsEntry("replicator.read-only", "true");
    assertThat(new ReplicaVerifier().fileProblems(promotedLocation, source.location)).isEmpty();
    Run verify = cli("verify", "--source", promotedLocation, "--target", source.location);
    assertThat(verify.exit).as(verify.out + verify.err).isZero();

    // writers stay on the promoted table: a rerun carries its new commit and keeps the tag
    promoted.table.refresh();
    promoted.append("e", 2);
    Run again = failback();

    assertThat(again.exit).as(again.err).isZero();
    assertThat(tags(again.out)).isEqualTo(tags);
    original.refresh();
    primary.refresh();
    assertHoldsThePromotedHistory(original, primary);
    assertThat(original.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
    assertThat(SourceTable.rows(original, orphanHead)).isEqualTo(orphanRows.get(orphanHead));
    assertThat(cli("verify", "--source", promotedLocation, "--target", source.location).exit)
        .isZero();
  }

  @Test
  void theOriginalsShortRetentionKeepsTheOrphanTagsAndTheirSnapshots() {
    long orphanHead = source.table.currentSnapshot().snapshotId();
    Map<String, Long> tags = tags(failback().out);
    String tag = tags.keySet().iterator().next();
    promoted.table.refresh();
    promoted.append("e", 2);
    assertThat(failback().exit).isZero();

    Run expire =
        cli(
            "expire",
            "--target",
            source.location,
            "--retention-period",
            "1ms",
            "--retain-last",
            "1",
            "--max-ref-age",
            "1ms");

    assertThat(expire.exit).as(expire.out + expire.err).isZero();
    assertThat(expire.out).contains("expired_snapshots_count");
    Table original = SourceTable.TABLES.load(source.location);
    assertThat(original.snapshots()).hasSizeLessThan(countSnapshots(promotedLocation) + 2);
    assertThat(original.refs().get(tag).isTag()).isTrue();
    assertThat(original.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
    assertThat(SourceTable.rows(original, orphanHead)).isEqualTo(orphanRows.get(orphanHead));
    Run verify = cli("verify", "--source", promotedLocation, "--target", source.location);
    assertThat(verify.exit).as(verify.out + verify.err).isZero();

    // and replication goes on keeping them
    promoted.append("f", 1);
    Run again = failback();
    assertThat(again.exit).as(again.out + again.err).isZero();
    original.refresh();
    assertThat(original.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
    assertThat(SourceTable.rows(original, orphanHead)).isEqualTo(orphanRows.get(orphanHead));
    assertThat(cli("verify", "--source", promotedLocation, "--target", source.location).exit)
        .isZero();
  }

  @Test
  void aCrashBeforeTheFailbackVersionIsPublishedLeavesTheOriginalAsItWasAndARerunFinishes() {
    long orphanHead = source.table.currentSnapshot().snapshotId();
    FaultInjectingStore faulty =
        new FaultInjectingStore(p -> p.endsWith(".metadata.json") && p.contains("/original/"));

    assertThatThrownBy(
            () ->
                new TableFailback(
                        new LocalObjectStore(),
                        faulty,
                        Clock.systemUTC(),
                        executor,
                        options(),
                        "failback-orphan",
                        TableCatalogs.NONE)
                    .failback(promotedLocation, source.location))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining("injected crash");

    Table original = SourceTable.TABLES.load(source.location);
    assertThat(original.currentSnapshot().snapshotId()).isEqualTo(orphanHead);
    for (Snapshot snapshot : original.snapshots()) {
      assertThat(SourceTable.rows(original, snapshot.snapshotId()))
          .isEqualTo(orphanRows.get(snapshot.snapshotId()));
    }

    Run rerun = failback();

    assertThat(rerun.exit).as(rerun.err).isZero();
    original.refresh();
    assertHoldsThePromotedHistory(original, SourceTable.TABLES.load(promotedLocation));
    assertThat(tags(rerun.out)).containsValue(orphanHead);
  }

  @Test
  void switchingBackMakesTheOriginalThePrimaryAndThePromotedTableItsReplicaAgain()
      throws IOException {
    long orphanHead = source.table.currentSnapshot().snapshotId();
    Map<String, Long> tags = tags(failback().out);
    String tag = tags.keySet().iterator().next();
    promoted.table.refresh();
    promoted.append("e", 2);
    assertThat(failback().exit).isZero();

    // writers stopped on the promoted table: the original is promoted from its replica of it
    Run promote = cli("promote", "--target", source.location, "--source", promotedLocation);
    assertThat(promote.exit).as(promote.out + promote.err).isZero();
    assertThat(promote.out).contains("epoch              2");
    SourceTable original = SourceTable.open(source.location, 2_000);
    original.append("f", 2);
    original.append("a", 1);
    Table primary = SourceTable.TABLES.load(promotedLocation);
    Map<Long, List<String>> promotedRows = new LinkedHashMap<>();
    for (Snapshot snapshot : primary.snapshots()) {
      promotedRows.put(snapshot.snapshotId(), SourceTable.rows(primary, snapshot.snapshotId()));
    }

    Run resumed = cli("replicate", "--source", source.location, "--target", promotedLocation);

    assertThat(resumed.exit).as(resumed.out + resumed.err).isZero();
    original.table.refresh();
    primary.refresh();
    assertThat(primary.properties())
        .containsEntry("replicator.read-only", "true")
        .containsEntry("replicator.epoch", "2");
    assertHoldsThePromotedHistory(primary, original.table);
    promotedRows.forEach(
        (id, rows) ->
            assertThat(SourceTable.rows(primary, id)).as("snapshot %s", id).isEqualTo(rows));
    assertThat(primary.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
    assertThat(SourceTable.rows(primary, orphanHead)).isEqualTo(orphanRows.get(orphanHead));
    assertThat(new ReplicaVerifier().fileProblems(source.location, promotedLocation)).isEmpty();
    Run verify = cli("verify", "--source", source.location, "--target", promotedLocation);
    assertThat(verify.exit).as(verify.out + verify.err).isZero();
    Run verifyBack = cli("verify", "--source", promotedLocation, "--target", source.location);
    assertThat(verifyBack.exit).as(verifyBack.out + verifyBack.err).isZero();

    // from now on ordinary forward replication
    original.append("g", 1);
    assertThat(cli("replicate", "--source", source.location, "--target", promotedLocation).exit)
        .isZero();
    primary.refresh();
    original.table.refresh();
    assertHoldsThePromotedHistory(primary, original.table);
  }

  @ParameterizedTest
  @ValueSource(strings = {".metadata.json", "version-hint.text"})
  void aCrashWhileResumingIsFinishedByTheRerun(String crashAt) throws IOException {
    assertThat(failback().exit).isZero();
    assertThat(cli("promote", "--target", source.location, "--source", promotedLocation).exit)
        .isZero();
    SourceTable original = SourceTable.open(source.location, 2_000);
    original.append("f", 2);
    FaultInjectingStore faulty =
        new FaultInjectingStore(p -> p.endsWith(crashAt) && p.contains("/promoted/"));

    assertThatThrownBy(
            () ->
                TableReplicator.builder(new LocalObjectStore(), faulty, executor, options())
                    .clock(Clock.systemUTC())
                    .build()
                    .replicate(source.location, promotedLocation, java.util.Optional.empty()))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining("injected crash");
    Run rerun = cli("replicate", "--source", source.location, "--target", promotedLocation);

    assertThat(rerun.exit).as(rerun.out + rerun.err).isZero();
    assertThat(new String(Files.readAllBytes(stateFile(promotedLocation))))
        .doesNotContain("promotion");
    original.append("g", 1);
    assertThat(cli("replicate", "--source", source.location, "--target", promotedLocation).exit)
        .isZero();
    Table primary = SourceTable.TABLES.load(promotedLocation);
    original.table.refresh();
    assertThat(primary.properties()).containsEntry("replicator.read-only", "true");
    assertHoldsThePromotedHistory(primary, original.table);
  }

  @Test
  void aWriteOnThePromotedTableAfterTheLastFailbackKeepsItFencedFromTheSwitchedBackOriginal()
      throws IOException {
    assertThat(failback().exit).isZero();
    assertThat(cli("promote", "--target", source.location, "--source", promotedLocation).exit)
        .isZero();
    promoted.table.refresh();
    promoted.append("late", 2);
    long written = currentSnapshotId(promoted);
    List<String> files = metadataFiles(promotedLocation);
    byte[] state = Files.readAllBytes(stateFile(promotedLocation));

    Run refused = cli("replicate", "--source", source.location, "--target", promotedLocation);

    assertThat(refused.exit).isEqualTo(1);
    assertThat(refused.err)
        .contains("written on after the source last failed back from it")
        .contains("its snapshots [" + written + "] are not in the source's head");
    assertThat(metadataFiles(promotedLocation)).isEqualTo(files);
    assertThat(Files.readAllBytes(stateFile(promotedLocation))).isEqualTo(state);
    Table primary = SourceTable.TABLES.load(promotedLocation);
    assertThat(primary.currentSnapshot().snapshotId()).isEqualTo(written);
    assertThat(primary.properties()).doesNotContainKey("replicator.read-only");
    List<String> writtenRows = SourceTable.rows(primary, written);

    // failing back the other way keeps the late commit under a tag, and replication resumes
    Run kept = cli("failback", "--primary", source.location, "--old-source", promotedLocation);
    assertThat(kept.exit).as(kept.out + kept.err).isZero();
    assertThat(tags(kept.out)).containsValue(written);
    assertThat(cli("replicate", "--source", source.location, "--target", promotedLocation).exit)
        .isZero();
    primary.refresh();
    assertThat(primary.properties()).containsEntry("replicator.read-only", "true");
    assertThat(SourceTable.rows(primary, written)).isEqualTo(writtenRows);
  }

  private Run failback() {
    return cli("failback", "--primary", promotedLocation, "--old-source", source.location);
  }

  /** Every snapshot, every logged time and every ref of the promoted table reads alike. */
  private static void assertHoldsThePromotedHistory(Table original, Table primary) {
    assertThat(original.currentSnapshot().snapshotId())
        .isEqualTo(primary.currentSnapshot().snapshotId());
    for (Snapshot snapshot : primary.snapshots()) {
      assertThat(SourceTable.rows(original, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(primary, snapshot.snapshotId()));
      assertThat(original.snapshot(snapshot.snapshotId()).sequenceNumber())
          .isEqualTo(snapshot.sequenceNumber());
    }
    for (HistoryEntry entry : primary.history()) {
      assertThat(rowsAsOf(original, entry.timestampMillis()))
          .as("as of %s", entry.timestampMillis())
          .isEqualTo(rowsAsOf(primary, entry.timestampMillis()));
    }
    primary
        .refs()
        .forEach(
            (name, ref) ->
                assertThat(original.refs().get(name).snapshotId())
                    .as("ref %s", name)
                    .isEqualTo(ref.snapshotId()));
  }

  private static int countSnapshots(String location) {
    int count = 0;
    for (Snapshot ignored : SourceTable.TABLES.load(location).snapshots()) {
      count++;
    }
    return count;
  }

  private static long currentSnapshotId(SourceTable table) {
    table.table.refresh();
    return table.table.currentSnapshot().snapshotId();
  }

  private static List<String> metadataFiles(String location) throws IOException {
    try (Stream<Path> files = Files.list(Path.of(URI.create(location)).resolve("metadata"))) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  private static Path stateFile(String location) {
    return Path.of(URI.create(location)).resolve("metadata/.replicator-state.json");
  }

  private static List<String> rowsAsOf(Table table, long timestampMs) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).asOfTime(timestampMs).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  private static Map<String, Long> tags(String out) {
    Map<String, Long> tags = new LinkedHashMap<>();
    Matcher m = TAG.matcher(out);
    while (m.find()) {
      tags.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return tags;
  }

  private static ReplicationOptions options() {
    return new ReplicationOptions(List.of(), false, 64L << 20, 4, Duration.ZERO);
  }

  private record Run(int exit, String out, String err) {}

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of(args));
    if (!"expire".equals(args[0])) {
      all.addAll(List.of("--settle-time", "0ms"));
    }
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
