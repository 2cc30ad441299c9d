package io.icerepl.app.engine.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.app.scenario.ReplicaVerifier;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backfill of two rules' local warehouses: tables written with the Iceberg library, one table
 * whose metadata is not JSON, one whose replica's store dies mid-run, read back with the Iceberg
 * library at every snapshot.
 */
class BackfillTest {
  @TempDir Path dir;

  private final ExecutorService files = Executors.newFixedThreadPool(4);
  private final CatalogClients catalogs = new CatalogClients();

  @AfterEach
  void close() {
    files.shutdownNow();
    catalogs.close();
  }

  @Test
  void replicatesEveryTableOfEveryRuleNamesTheBadOneAndARerunFinishesWhatACrashLeft()
      throws Exception {
    ScenarioTable a = table("wh1/ns/a", 3);
    ScenarioTable b = table("wh1/ns/b", 2);
    ScenarioTable c = table("wh2/c", 2);
    Path bad = dir.resolve("wh2/bad/metadata");
    Files.createDirectories(bad);
    Files.writeString(bad.resolve("v1.metadata.json"), "{ not json");
    Files.writeString(bad.resolve("version-hint.text"), "1");
    TableRules rules =
        new TableRules(List.of(rule("one", "wh1", "dr1"), rule("two", "wh2", "dr2")));
    String replicaB = dir.resolve("dr1/ns/b").toString();
    FaultInjectingStore dying = new FaultInjectingStore(path -> path.endsWith(".avro"));

    List<TableOutcome> first =
        backfill(rules, stores(location -> location.startsWith(replicaB) ? dying : null));

    assertThat(first)
        .extracting(o -> o.rule() + ":" + o.table() + "->" + o.target(), TableOutcome::failed)
        .containsExactly(
            Tuple.tuple("one:ns/a->dr1", false),
            Tuple.tuple("one:ns/b->dr1", true),
            Tuple.tuple("two:bad->dr2", true),
            Tuple.tuple("two:c->dr2", false));
    assertThat(first.get(2).error().orElseThrow())
        .startsWith("Cannot ")
        .contains(bad.resolve("v1.metadata.json").toString());
    assertThat(dying.crashed()).isTrue();
    ReplicaVerifier verifier = new ReplicaVerifier();
    verifier.verify(a, dir.resolve("dr1/ns/a").toString());
    verifier.verify(c, dir.resolve("dr2/c").toString());

    List<TableOutcome> rerun = backfill(rules, stores(location -> null));

    assertThat(rerun.get(0).upToDate()).isTrue();
    assertThat(rerun.get(1).failed()).isFalse();
    assertThat(rerun.get(1).summary().orElseThrow().versionsApplied()).isPositive();
    assertThat(rerun.get(2).failed()).isTrue();
    assertThat(rerun.get(3).upToDate()).isTrue();
    verifier.verify(b, replicaB);

    List<TableOutcome> afterCompletion = backfill(rules, stores(location -> null));

    assertThat(afterCompletion)
        .filteredOn(o -> !o.failed())
        .hasSize(3)
        .allSatisfy(o -> assertThat(o.upToDate()).as(o.table()).isTrue());
    assertThat(
            afterCompletion.stream()
                .flatMap(o -> o.summary().stream())
                .mapToLong(ReplicationSummary::filesCopied)
                .sum())
        .isZero();
  }

  private List<TableOutcome> backfill(TableRules rules, StoreFactory stores)
      throws InterruptedException {
    return new Backfill(
            rules,
            stores,
            Clock.systemUTC(),
            files,
            new ReplicationOptions(List.of(), false, 1 << 26, 4, Duration.ZERO),
            catalogs,
            2,
            BatchOperations.OFF)
        .run(BackfillListener.NONE);
  }

  private ScenarioTable table(String relative, int commits) {
    ScenarioTable table =
        ScenarioTable.create(
            relative,
            dir.resolve(relative).toString(),
            Scenario.SCHEMA,
            PartitionSpec.unpartitioned(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    for (int i = 0; i < commits; i++) {
      table.append(table.row(i, "name" + i, "x"));
      table.record();
    }
    return table;
  }

  private TableRule rule(String name, String source, String target) {
    return new TableRule(
        name,
        dir.resolve(source).toString(),
        List.of(
            new RuleTarget(
                target,
                dir.resolve(target).toString(),
                List.of(),
                Optional.empty(),
                Optional.empty())),
        List.of(),
        RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false),
        Optional.empty());
  }

  /** Local stores; {@code target} may name another for a replica location. */
  private static StoreFactory stores(Function<String, ObjectStore> target) {
    LocalObjectStore local = new LocalObjectStore();
    return new StoreFactory() {
      @Override
      public ObjectStore sourceStore(String location) {
        return local;
      }

      @Override
      public ObjectStore targetStore(String location) {
        ObjectStore special = target.apply(location);
        return special != null ? special : local;
      }
    };
  }
}
