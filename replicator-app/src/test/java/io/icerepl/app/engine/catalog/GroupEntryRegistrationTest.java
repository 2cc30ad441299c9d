package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.ReplicaRegistrar.Registration;
import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.group.CutTags;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A replication group's members whose catalog entries do not exist yet, in the catalogs that move a
 * group's entries together (JDBC on SQLite, Iceberg's REST catalog server): a member's own run
 * never creates its entry, before a cut or after one, and the group's move registers every member
 * without an entry at the cut it moves the others to, so no reader of the catalog finds one table
 * at a newer cut than another. Fails when an own run's first registration goes through (at the cut,
 * or at a version behind the cut another member's entry shows), or when the group's move leaves
 * entries that do not exist yet to the replicas' own runs.
 */
class GroupEntryRegistrationTest {
  private static final String REF = "sales";
  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  private static final TableIdentifier ITEMS = TableIdentifier.of("sales", "order_items");
  private static ExecutorService executor;

  private final CatalogClients clients = new CatalogClients();
  private final LocalObjectStore store = new LocalObjectStore();
  @TempDir Path dir;
  private TargetCatalog target;

  @BeforeAll
  static void startExecutor() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stopExecutor() {
    executor.shutdownNow();
  }

  @AfterEach
  void closeCatalog() throws Exception {
    clients.close();
    if (target != null) {
      target.close();
    }
  }

  /** One group member: its source, its replica and its entry's (held) registrar. */
  private final class Member {
    final ScenarioTable source;
    final String replica;
    final TableIdentifier id;
    final ReplicaRegistrar registrar;
    String current;

    Member(String name, TableIdentifier id) {
      this.source =
          ScenarioTable.create(
              name,
              dir.resolve("source-" + id.name()).toString(),
              Scenario.SCHEMA,
              PartitionSpec.unpartitioned(),
              null,
              Map.of(TableProperties.FORMAT_VERSION, "2"));
      this.replica = dir.resolve("replica-" + id.name()).toUri().toString();
      this.id = id;
      this.registrar =
          EntriesTogether.held(
              CatalogRegistrars.forCatalog(target.spec(), target.catalog(), id, store, clients),
              REF);
    }

    /** Replicates the source, the entry left alone. */
    void replicate() {
      current =
          TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
              .clock(Clock.systemUTC())
              .progress(CopyProgress.Listener.NONE)
              .catalogs(new TableCatalogs(Optional.empty(), Optional.empty()))
              .build()
              .replicateIfChanged(source.location(), replica)
              .heads()
              .replica()
              .orElseThrow()
              .file();
    }

    /** Tags the group's cut of {@code momentMs} on the replica. */
    void tagCut(long momentMs) throws Exception {
      List<String> published = new ArrayList<>();
      CutTagWriter.Outcome outcome =
          new CutTagWriter(
                  store, Clock.systemUTC(), ReplicationOptions.defaults().maxMetadataBytes())
              .move(id.name(), replica, REF, momentMs, Duration.ofHours(1), published::add);
      assertThat(outcome).isEqualTo(CutTagWriter.Outcome.MOVED);
      current = published.get(0);
    }

    Registration register() {
      return registrar.register(replica, current);
    }

    EntriesTogether.Member member() {
      return new EntriesTogether.Member(replica, current, registrar);
    }

    /** The newest cut the entry shows; empty when it shows none; null when there is no entry. */
    OptionalLong entryCut() {
      try {
        return CutTags.newest(REF, target.entry(id).refs().keySet());
      } catch (NoSuchTableException e) {
        return null;
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TargetCatalog.Kind.class,
      names = {"JDBC", "REST"})
  void aMembersOwnRunNeverCreatesItsEntryBeforeOrAfterACut(TargetCatalog.Kind kind)
      throws Exception {
    target = TargetCatalog.start(kind, dir.resolve("catalog"));
    Member orders = new Member("ORDERS", ORDERS);
    Member items = new Member("ITEMS", ITEMS);
    orders.source.append(orders.source.row(1, "a", "x"));
    items.source.append(items.source.row(10, "b", "x"), items.source.row(11, "c", "x"));
    orders.replicate();
    items.replicate();
    String itemsBeforeTheCut = items.current;
    assertThat(orders.register())
        .as("orders' own run, before any cut")
        .isEqualTo(Registration.HELD);
    assertThat(orders.entryCut()).as("orders' entry, before any cut").isNull();
    long moment = nextSecond();
    orders.tagCut(moment);
    items.tagCut(moment);
    assertThat(items.register())
        .as("order_items' own run, at a version carrying the cut")
        .isEqualTo(Registration.HELD);

    // the group's move has registered orders at the cut and not yet order_items, when order_items'
    // own run, which read its replica before the round tagged it, registers that older version
    EntriesTogether.move(List.of(orders.member()), cutTag(moment));
    assertThat(orders.entryCut()).as("orders' entry").hasValue(moment);
    assertThat(items.registrar.register(items.replica, itemsBeforeTheCut))
        .as("order_items' own run at a version behind the cut orders shows")
        .isEqualTo(Registration.HELD);
    assertThat(items.entryCut()).as("order_items' entry").isNull();

    int moved = EntriesTogether.move(List.of(orders.member(), items.member()), cutTag(moment));

    assertThat(moved).as("order_items registered by the move").isEqualTo(1);
    assertBothAtTheCut(orders, items, moment);
  }

  @ParameterizedTest
  @EnumSource(
      value = TargetCatalog.Kind.class,
      names = {"JDBC", "REST"})
  void membersWithNoEntryYetAreRegisteredByTheGroupsMove(TargetCatalog.Kind kind) throws Exception {
    target = TargetCatalog.start(kind, dir.resolve("catalog"));
    Member orders = new Member("ORDERS", ORDERS);
    Member items = new Member("ITEMS", ITEMS);
    orders.source.append(orders.source.row(1, "a", "x"));
    items.source.append(items.source.row(10, "b", "x"));
    orders.replicate();
    items.replicate();
    long moment = nextSecond();
    orders.tagCut(moment);
    items.tagCut(moment);
    assertThat(orders.register()).isEqualTo(Registration.HELD);
    assertThat(items.register()).isEqualTo(Registration.HELD);

    int moved = EntriesTogether.move(List.of(orders.member(), items.member()), cutTag(moment));

    assertThat(moved).isEqualTo(2);
    assertBothAtTheCut(orders, items, moment);
    assertThat(orders.register())
        .as("orders' own run at the version the move registered")
        .isEqualTo(Registration.UNCHANGED);
    orders.source.append(orders.source.row(2, "d", "x"));
    orders.replicate();
    assertThat(orders.register())
        .as("orders' own run, after the move, at a version with no newer cut")
        .isEqualTo(Registration.ADVANCED);
    assertThat(target.catalog().loadTable(orders.id).currentSnapshot().snapshotId())
        .as("orders' entry follows its replica")
        .isEqualTo(orders.source.table().currentSnapshot().snapshotId());
  }

  /**
   * A source tag named like one of the group's cut tags, replicated as any ref, is no cut: a
   * version carrying it is not ahead of the entry, which follows its replica's own runs, and the
   * entry's cut stays the one the group's tagging recorded. Fails when the registrar reads a ref's
   * name as a cut (the entry is then held back from every later version).
   */
  @ParameterizedTest
  @EnumSource(
      value = TargetCatalog.Kind.class,
      names = {"JDBC", "REST"})
  void aSourceTagNamedLikeACutNeitherHoldsNorMovesAnEntry(TargetCatalog.Kind kind)
      throws Exception {
    target = TargetCatalog.start(kind, dir.resolve("catalog"));
    Member orders = new Member("ORDERS", ORDERS);
    Member items = new Member("ITEMS", ITEMS);
    orders.source.append(orders.source.row(1, "a", "x"));
    items.source.append(items.source.row(10, "b", "x"));
    orders.replicate();
    items.replicate();
    long moment = nextSecond();
    orders.tagCut(moment);
    items.tagCut(moment);
    EntriesTogether.move(List.of(orders.member(), items.member()), cutTag(moment));
    assertBothAtTheCut(orders, items, moment);

    orders.source.append(orders.source.row(2, "d", "x"));
    String lookAlike = "sales-20991231T235959Z";
    orders
        .source
        .table()
        .manageSnapshots()
        .createTag(lookAlike, orders.source.table().currentSnapshot().snapshotId())
        .commit();
    orders.replicate();

    assertThat(orders.register())
        .as("orders' own run at a version carrying a source tag named like a cut")
        .isEqualTo(Registration.ADVANCED);
    assertThat(target.catalog().loadTable(orders.id).refs())
        .as("orders' entry at its replica's version, the source's tag replicated")
        .containsKey(lookAlike);
    assertThat(target.catalog().loadTable(orders.id).currentSnapshot().snapshotId())
        .as("orders' entry follows its replica")
        .isEqualTo(orders.source.table().currentSnapshot().snapshotId());
  }

  /** Both entries show the cut, each at its source's snapshot of the cut's moment. */
  private void assertBothAtTheCut(Member orders, Member items, long moment) {
    for (Member member : List.of(orders, items)) {
      assertThat(member.entryCut()).as("%s's entry", member.id).hasValue(moment);
      member.source.table().refresh();
      assertThat(target.catalog().loadTable(member.id).snapshot(cutTag(moment)).snapshotId())
          .as("%s read through the catalog at the cut", member.id)
          .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(member.source.table(), moment));
    }
  }

  /** A cut's moment, a whole second (as cut tags name it) after the sources' commits. */
  private static long nextSecond() throws InterruptedException {
    long now = System.currentTimeMillis();
    long moment = (now / 1000 + 1) * 1000;
    Thread.sleep(moment - now + 1);
    return moment;
  }

  private static String cutTag(long moment) {
    return CutTags.name(REF, moment);
  }
}
