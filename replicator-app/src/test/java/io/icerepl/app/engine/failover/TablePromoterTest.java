package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.failover.PromotedMetadata;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.merge.ReplicaProperties;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Promotion of replicas of real Iceberg tables: the promoted table takes Iceberg commits, reads
 * every snapshot as the source did, is never replicated into again, and a crashed promotion is
 * finished by a rerun.
 */
class TablePromoterTest {
  private static ExecutorService executor;

  @TempDir Path dir;

  private final LocalObjectStore local = new LocalObjectStore();

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  private static TableReplicator replicator(ObjectStore target) {
    return TableReplicator.builder(
            new LocalObjectStore(), target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build();
  }

  private static TablePromoter promoter(ObjectStore target) {
    return new TablePromoter(
        target, Clock.systemUTC(), ReplicationOptions.defaults().maxMetadataBytes());
  }

  private SourceTable sourceWithHistory(int formatVersion) {
    SourceTable source = SourceTable.create(dir.resolve("source"), formatVersion);
    DataFile first = source.append("a", 4);
    source.append("b", 3);
    if (formatVersion == 2) {
      source.deletePositions(first, 1);
    }
    return source;
  }

  private String replicaOf(SourceTable source) {
    String replica = dir.resolve("replica").toUri().toString();
    replicator(local).replicate(source.location, replica, Optional.empty());
    return replica;
  }

  private List<String> metadataFiles(String location) throws IOException {
    try (Stream<Path> files = Files.list(Paths.get(URI.create(location)).resolve("metadata"))) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void aPromotedReplicaTakesIcebergCommitsAboveTheGapAndReadsEverySnapshot(int formatVersion) {
    SourceTable source = sourceWithHistory(formatVersion);
    String replica = replicaOf(source);
    Table before = SourceTable.TABLES.load(replica);
    long lastSequenceNumber = before.currentSnapshot().sequenceNumber();

    PromotionResult result = promoter(local).promote(replica, replica, PromotionMode.NOW);

    assertThat(result.alreadyPromoted()).isFalse();
    assertThat(result.promotion().epoch()).isEqualTo(1);
    assertThat(result.promotion().mode()).isEqualTo("now");
    assertThat(result.metadataFile()).endsWith("/metadata/v2.metadata.json");
    Table promoted = SourceTable.TABLES.load(replica);
    assertThat(promoted.properties())
        .doesNotContainKeys(ReplicaProperties.READ_ONLY, ReplicaProperties.COMMIT_TOKEN)
        .containsEntry(ReplicaProperties.EPOCH, "1");

    SourceTable writer = SourceTable.open(replica, 1_000);
    writer.append("c", 2);
    Table reread = SourceTable.TABLES.load(replica);
    Snapshot written = reread.currentSnapshot();
    assertThat(written.sequenceNumber())
        .isEqualTo(lastSequenceNumber + PromotedMetadata.SEQUENCE_NUMBER_GAP + 1);
    if (formatVersion >= 3) {
      assertThat(written.firstRowId()).isGreaterThanOrEqualTo(PromotedMetadata.ROW_ID_GAP);
    }
    source.table.refresh();
    for (Snapshot snapshot : source.table.snapshots()) {
      assertThat(SourceTable.rows(reread, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
    }
    List<String> expected =
        new ArrayList<>(
            SourceTable.rows(source.table, source.table.currentSnapshot().snapshotId()));
    expected.addAll(List.of("Record(1000, c)", "Record(1001, c)"));
    expected.sort(null);
    assertThat(SourceTable.rows(reread, written.snapshotId())).isEqualTo(expected);
  }

  @Test
  void aReplicationAfterPromotionWritesNothingAndReportsPromotedThenOldPrimaryWrote()
      throws IOException {
    SourceTable source = sourceWithHistory(2);
    String replica = replicaOf(source);
    Promotion promotion = promoter(local).promote(replica, replica, PromotionMode.NOW).promotion();
    List<String> files = metadataFiles(replica);

    assertThatThrownBy(
            () -> replicator(local).replicate(source.location, replica, Optional.empty()))
        .isInstanceOfSatisfying(
            TableReplicationException.class,
            e -> {
              assertThat(e.promoted())
                  .map(PromotedReplicaException::fence)
                  .contains(Promotion.Fence.PROMOTED);
              assertThat(e.retryable()).isFalse();
            })
        .hasMessageContaining("the replica was promoted at")
        .hasMessageContaining("epoch 1, from source version " + promotion.lastSourceMetadataFile());
    assertThat(metadataFiles(replica)).isEqualTo(files);

    source.append("d", 1);
    String head =
        ((org.apache.iceberg.HasTableOperations) source.table)
            .operations()
            .current()
            .metadataFileLocation();
    String headName = head.substring(head.lastIndexOf('/') + 1);
    assertThatThrownBy(() -> replicator(local).replicateIfChanged(source.location, replica))
        .isInstanceOfSatisfying(
            TableReplicationException.class,
            e ->
                assertThat(e.promoted())
                    .map(PromotedReplicaException::fence)
                    .contains(Promotion.Fence.OLD_PRIMARY_WROTE))
        .hasMessageContaining("the old primary wrote after failover")
        .hasMessageContaining(headName)
        .hasMessageContaining(promotion.lastSourceMetadataFile());
    assertThat(metadataFiles(replica)).isEqualTo(files);
  }

  @Test
  void aCrashBetweenTheRecordAndThePublishIsFinishedByTheRerun() throws IOException {
    SourceTable source = sourceWithHistory(2);
    String replica = replicaOf(source);
    FaultInjectingStore crashing = new FaultInjectingStore(p -> p.endsWith("v2.metadata.json"));

    assertThatThrownBy(() -> promoter(crashing).promote(replica, replica, PromotionMode.NOW))
        .isInstanceOf(TablePromotionException.class)
        .hasMessageContaining("injected crash");
    assertThat(crashing.crashed()).isTrue();
    assertThat(new ReplicaFiles(local, Long.MAX_VALUE).state(replica).promotion()).isNotNull();
    assertThat(SourceTable.TABLES.load(replica).properties())
        .containsEntry(ReplicaProperties.READ_ONLY, "true");
    assertThatThrownBy(
            () -> replicator(local).replicate(source.location, replica, Optional.empty()))
        .isInstanceOfSatisfying(
            TableReplicationException.class, e -> assertThat(e.promoted()).isPresent());

    PromotionResult finished = promoter(local).promote(replica, replica, PromotionMode.NOW);
    assertThat(finished.alreadyPromoted()).isFalse();
    assertThat(SourceTable.TABLES.load(replica).properties())
        .doesNotContainKey(ReplicaProperties.READ_ONLY)
        .containsEntry(ReplicaProperties.EPOCH, "1");

    PromotionResult again = promoter(local).promote(replica, replica, PromotionMode.SAFE);
    assertThat(again.alreadyPromoted()).isTrue();
    assertThat(again.promotion()).isEqualTo(finished.promotion());
  }

  @Test
  void aCrashBeforeTheVersionHintIsFinishedByTheRerun() throws IOException {
    SourceTable source = sourceWithHistory(2);
    String replica = replicaOf(source);
    FaultInjectingStore crashing = new FaultInjectingStore(p -> p.endsWith("version-hint.text"));

    assertThatThrownBy(() -> promoter(crashing).promote(replica, replica, PromotionMode.NOW))
        .isInstanceOf(TablePromotionException.class);
    Path hint = Paths.get(URI.create(replica)).resolve("metadata/version-hint.text");
    assertThat(Files.readString(hint).trim()).isEqualTo("1");

    PromotionResult finished = promoter(local).promote(replica, replica, PromotionMode.NOW);
    assertThat(finished.alreadyPromoted()).isTrue();
    assertThat(Files.readString(hint).trim()).isEqualTo("2");
    SourceTable.open(replica, 1_000).append("c", 1);
    assertThat(Files.readString(hint).trim()).isEqualTo("3");
  }

  @Test
  void safeModeRefusesAReplicaWithADeletedDataFileAndForcePromotesIt() throws IOException {
    SourceTable source = sourceWithHistory(2);
    String replica = replicaOf(source);
    Table replicaTable = SourceTable.TABLES.load(replica);
    String dataFile =
        replicaTable
            .snapshots()
            .iterator()
            .next()
            .addedDataFiles(replicaTable.io())
            .iterator()
            .next()
            .location();
    local.delete(dataFile);
    TableVerifier verifier =
        new TableVerifier(local, executor, 4, ReplicationOptions.defaults().maxMetadataBytes());
    List<String> problems = new ArrayList<>();

    assertThatThrownBy(
            () ->
                promoter(local)
                    .promoteSafely(
                        replica,
                        source.location,
                        replica,
                        replicator(local),
                        local,
                        verifier,
                        false,
                        problems::add,
                        OptionalLong.empty()))
        .isInstanceOf(TablePromotionException.class)
        .hasMessageMatching(
            java.util.regex.Pattern.quote("Cannot promote table " + replica)
                + ": verify found 1 problems in \\d+ checked; the replica is not promoted"
                + " \\(force promotes it anyway\\)");
    assertThat(problems).singleElement().asString().contains(dataFile);
    assertThat(promoter(local).promotion(replica, replica)).isEmpty();

    PromotionResult forced =
        promoter(local)
            .promoteSafely(
                replica,
                source.location,
                replica,
                replicator(local),
                local,
                verifier,
                true,
                p -> {},
                OptionalLong.empty());
    assertThat(forced.promotion().mode()).isEqualTo("safe");
    assertThat(SourceTable.TABLES.load(replica).properties())
        .containsEntry(ReplicaProperties.EPOCH, "1");
  }
}
