package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.service.status.ReplicationState;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.RequestCountingStore;
import io.icerepl.copier.store.RequestCountingStore.Kind;
import io.icerepl.fixtures.RecordingStore;
import io.icerepl.fixtures.ShiftableClock;
import io.icerepl.merge.merge.ReplicaProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a reconciliation pass costs over a rule's tables: a table whose metadata folder lists as it
 * did when its replica last held the head costs that one listing, no read and no run; a changed one
 * replicates in the same pass; and a head still settling is looked at again by the next pass
 * although its folder lists alike; an idle table is listed ever less often, up to the idle
 * interval, and a group's at every pass.
 */
class ReconciliationPassCostTest {
  private static final Duration PASS = Duration.ofMinutes(1);
  private static final Duration IDLE = Duration.ofMinutes(15);
  @TempDir Path dir;

  private final RecordingStore listings = new RecordingStore();
  private final RequestCountingStore source = new RequestCountingStore(listings);
  private final RequestCountingStore target = new RequestCountingStore(new LocalObjectStore());
  private final ShiftableClock clock = new ShiftableClock();
  private final StatusBoard board = new StatusBoard(clock, new SimpleMeterRegistry());
  private final TableChecks checks = new TableChecks(2, Duration.ofSeconds(10), clock);
  private TableRules rules;
  private TableRule rule;
  private TableRunner runner;
  private ReplicationCoordinator coordinator;
  private TableDiscovery discovery;
  private Reconciler reconciler;

  @BeforeEach
  void engine() {
    rule =
        new TableRule(
            "rule",
            dir.resolve("source").toUri().toString(),
            List.of(new RuleTarget("target", dir.resolve("replica").toUri().toString(), List.of())),
            List.of(),
            RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
    rules = new TableRules(List.of(rule));
    StoreFactory stores =
        new StoreFactory() {
          @Override
          public ObjectStore sourceStore(String location) {
            return source;
          }

          @Override
          public ObjectStore targetStore(String location) {
            return target;
          }
        };
    TableContext context =
        TableContext.builder(
                stores,
                clock,
                Executors.newFixedThreadPool(2),
                ReplicationOptions.defaults(),
                rules,
                board)
            .build();
    runner = new TableRunner(context);
    coordinator =
        new ReplicationCoordinator(
            runner::replicate,
            new ReplicaMaintenance(context)::expire,
            board::failed,
            board::laneRefused,
            100,
            Executors.newFixedThreadPool(2),
            Executors.newSingleThreadScheduledExecutor(),
            2,
            Duration.ofMinutes(1),
            Duration.ofMinutes(1));
    discovery = new TableDiscovery(stores, new CatalogClients());
    reconciler = reconciler(ReconcileSchedule.everyPass(), key -> false);
  }

  private Reconciler reconciler(ReconcileSchedule schedule, Predicate<TableKey> everyPass) {
    return new Reconciler(
        rules, discovery, coordinator, board, runner, clock, schedule, everyPass, checks);
  }

  @AfterEach
  void stop() throws InterruptedException {
    checks.close();
    coordinator.close();
    runner.close();
  }

  @Test
  void unchangedTablesCostOneListingPerSideAndAChangedOneReplicatesInTheSamePass() {
    SourceTable a = table("a");
    SourceTable b = table("b");
    SourceTable c = table("c");
    pass();
    source.reset();
    target.reset();

    pass();

    // the rule's folder, ns/ (as a folder and as a possible table) and each table's metadata/
    assertThat(source.count(Kind.LIST)).isEqualTo(6);
    assertThat(source.reads()).isEmpty();
    assertThat(source.count(Kind.HEAD)).isZero();
    // each replica's metadata/ listed once, to see that nobody wrote into it
    for (Kind kind : Kind.values()) {
      assertThat(target.count(kind))
          .as("replica %s requests", kind)
          .isEqualTo(kind == Kind.LIST ? 3 : 0);
    }

    b.append("y", 2);
    source.reset();
    target.reset();

    pass();

    assertThat(source.reads()).isNotEmpty().allMatch(path -> path.contains("/source/ns/b/"));
    assertThat(target.reads()).isNotEmpty().allMatch(path -> path.contains("/replica/ns/b/"));
    assertThat(target.count(Kind.LEASE)).isEqualTo(1);
    assertReplicaReadsLikeTheSource(b);
    assertReplicaReadsLikeTheSource(a);
    assertReplicaReadsLikeTheSource(c);
  }

  @Test
  void aHeadStillSettlingIsReplicatedByALaterPassThoughItsFolderListsAlike() throws IOException {
    SourceTable t = table("t");
    Path metadata = Path.of(java.net.URI.create(rule.source())).resolve("ns/t/metadata");
    // the table as a catalog writer leaves it: no version hint
    deleteHint(metadata);
    pass();
    t.append("y", 2);
    deleteHint(metadata);
    Path written = metadata.resolve("v3.metadata.json");
    String newest = "00003-" + UUID.randomUUID() + ".metadata.json";
    Files.move(written, metadata.resolve(newest));
    Files.deleteIfExists(metadata.resolve(".v3.metadata.json.crc"));
    Files.setLastModifiedTime(metadata.resolve(newest), FileTime.fromMillis(clock.millis()));

    pass();
    assertThat(replicatedFile("t")).isEqualTo("v2.metadata.json");

    clock.advance(ReplicationOptions.defaults().settleTime().plusSeconds(1));
    pass();

    assertThat(replicatedFile("t")).isEqualTo(newest);
    assertReplicaReadsLikeTheSource(t);
  }

  @Test
  void aReplicaWrittenBehindTheReplicatorsBackIsRunAndShownDivergedThoughItsSourceListsAlike() {
    table("t");
    pass();
    TableKey key = rules.keys(rule, "ns/t").get(0);
    assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
    Table replica = SourceTable.TABLES.load(replicaLocation("t"));
    replica.updateProperties().set("owner", "someone else").commit();
    source.reset();

    // the run fails, and is retried: the pass never drains, so wait for what it shows
    reconciler.reconcile();

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> board.get(key).orElseThrow().state() == ReplicationState.DIVERGED);
    assertThat(source.reads()).isNotEmpty();
  }

  @Test
  void anIdleTableIsListedEverLessOftenAndAChangeWithoutAnEventIsCaughtWithinTheIdleInterval() {
    SourceTable a = table("a");
    SourceTable b = table("b");
    reconciler = reconciler(new ReconcileSchedule(PASS, IDLE), key -> false);
    // two idle hours, one pass a minute
    List<Integer> checksOfA = passes(120, "ns/a");
    assertThat(gaps(checksOfA)).as("minutes between checks of a").allMatch(gap -> gap <= 15);
    // 1, 2, 4, 8, then every 15 minutes: 12 checks in 120 passes, where every pass makes 120
    assertThat(checksOfA).hasSizeBetween(9, 13);
    assertThat(gaps(checksOfA).subList(gaps(checksOfA).size() - 3, gaps(checksOfA).size()))
        .containsOnly(15);

    // a commit whose event was lost, on a table idle for two hours
    b.append("y", 2);
    int minutes = 0;
    while (count(SourceTable.TABLES.load(replicaLocation("b"))) < count(b.table)) {
      assertThat(minutes).as("minutes to catch a lost event").isLessThanOrEqualTo(16);
      passes(1, "ns/b");
      minutes++;
    }
    assertReplicaReadsLikeTheSource(b);
    assertReplicaReadsLikeTheSource(a);
    // a table that changed is checked at the next pass again
    assertThat(passes(1, "ns/b")).hasSize(1);
  }

  @Test
  void aGroupsTableIsListedAtEveryPass() {
    table("a");
    table("b");
    reconciler = reconciler(new ReconcileSchedule(PASS, IDLE), key -> key.table().equals("ns/a"));

    assertThat(passes(30, "ns/a")).hasSize(30);
    assertThat(passes(30, "ns/b")).hasSizeLessThan(10);
  }

  @Test
  void aScheduleWithoutIdleIntervalListsEveryTableAtEveryPass() {
    table("a");
    reconciler = reconciler(new ReconcileSchedule(PASS, Duration.ZERO), key -> false);

    assertThat(passes(20, "ns/a")).hasSize(20);
  }

  /**
   * Runs {@code count} passes a minute apart; returns the minutes, from the first, at which the
   * table's metadata folder was listed.
   */
  private List<Integer> passes(int count, String table) {
    String folder = "/source/" + table + "/metadata";
    List<Integer> checks = new ArrayList<>();
    for (int minute = 0; minute < count; minute++) {
      listings.reset();
      pass();
      if (listings.paths("listEntries").stream()
          .anyMatch(f -> f.replaceAll("/+$", "").endsWith(folder))) {
        checks.add(minute);
      }
      clock.advance(PASS);
    }
    return checks;
  }

  private static List<Integer> gaps(List<Integer> checks) {
    List<Integer> gaps = new ArrayList<>();
    for (int i = 1; i < checks.size(); i++) {
      gaps.add(checks.get(i) - checks.get(i - 1));
    }
    return gaps;
  }

  private static int count(Table table) {
    int count = 0;
    for (Snapshot ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  private SourceTable table(String name) {
    SourceTable table =
        SourceTable.create(Path.of(java.net.URI.create(rule.source())).resolve("ns/" + name), 2);
    table.append("x", 3);
    return table;
  }

  private void pass() {
    reconciler.reconcile();
    await().atMost(Duration.ofSeconds(60)).until(() -> coordinator.pending() == 0);
  }

  private static void deleteHint(Path metadata) throws IOException {
    Files.deleteIfExists(metadata.resolve("version-hint.text"));
    Files.deleteIfExists(metadata.resolve(".version-hint.text.crc"));
  }

  private String replicaLocation(String name) {
    return rules.keys(rule, "ns/" + name).get(0).targetLocation();
  }

  private String replicatedFile(String name) {
    Table replica = SourceTable.TABLES.load(replicaLocation(name));
    return replica.properties().get(ReplicaProperties.SOURCE_METADATA_FILE);
  }

  private void assertReplicaReadsLikeTheSource(SourceTable table) {
    Table replica = SourceTable.TABLES.load(replicaLocation(locationName(table)));
    assertThat(replica.snapshots()).hasSameSizeAs(table.table.snapshots());
    for (Snapshot snapshot : table.table.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(table.table, snapshot.snapshotId()));
    }
  }

  private static String locationName(SourceTable table) {
    String location =
        table.location.endsWith("/")
            ? table.location.substring(0, table.location.length() - 1)
            : table.location;
    return location.substring(location.lastIndexOf('/') + 1);
  }
}
