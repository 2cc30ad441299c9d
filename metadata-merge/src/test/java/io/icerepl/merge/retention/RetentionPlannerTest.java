package io.icerepl.merge.retention;

import static io.icerepl.merge.retention.HistoryJson.parsedByIceberg;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetentionPlannerTest {
  private static final long HOUR = 60L * 60 * 1000;
  private static final long DAY = 24 * HOUR;
  private static final long NOW = 1_000 * DAY;

  /** One snapshot, one day, refs forever: most tests only vary what they are about. */
  private static final RetentionPolicy ONE_DAY = new RetentionPolicy(1, DAY, Long.MAX_VALUE);

  private static long daysAgo(double days) {
    return NOW - (long) (days * DAY);
  }

  private static RetentionPlan plan(
      HistoryJson table, RetentionPolicy policy, ExpireOptions options) {
    return RetentionPlanner.plan(table.build(), policy, options, NOW);
  }

  private static RetentionPlan plan(HistoryJson table, RetentionPolicy policy) {
    return plan(table, policy, ExpireOptions.defaults());
  }

  private static ExpireOptions expireBefore(long ms) {
    return new ExpireOptions(Optional.of(ms), Optional.empty(), Optional.empty(), Set.of(), false);
  }

  private static ExpireOptions overrides(Long retentionPeriodMs, Integer retainLast) {
    return new ExpireOptions(
        Optional.empty(),
        Optional.ofNullable(retentionPeriodMs),
        Optional.ofNullable(retainLast),
        Set.of(),
        false);
  }

  private static ExpireOptions snapshotIds(Long... ids) {
    return new ExpireOptions(
        Optional.empty(), Optional.empty(), Optional.empty(), Set.of(ids), false);
  }

  private static List<Long> snapshotIdsOf(TableMetadata metadata) {
    return metadata.snapshots().stream().map(Snapshot::snapshotId).toList();
  }

  /** main: 1 (10 days) ← 2 (9 days) ← 3 (8 days) ← 4 (12 hours) ← 5 (1 hour). */
  private static HistoryJson mainHistory(int formatVersion) {
    return HistoryJson.table(formatVersion)
        .commit(1, null, daysAgo(10))
        .commit(2, 1L, daysAgo(9))
        .commit(3, 2L, daysAgo(8))
        .commit(4, 3L, NOW - 12 * HOUR)
        .commit(5, 4L, NOW - HOUR);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void branchKeepsAncestorsYoungerThanMaxSnapshotAgeAndExpiresOlderOnes(int formatVersion) {
    RetentionPlan plan = plan(mainHistory(formatVersion), ONE_DAY);

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 2L, 3L);
    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(4L, 5L);
    assertThat(plan.metadata().currentSnapshotId()).contains(5L);
    assertThat(plan.droppedRefs()).isEmpty();
    assertThat(plan.warnings()).isEmpty();
    assertThat(parsedByIceberg(plan.metadata()).snapshots()).hasSize(2);
  }

  @Test
  void snapshotExactlyMaxSnapshotAgeOldIsKept() {
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, NOW - DAY - 1)
            .commit(2, 1L, NOW - DAY)
            .commit(3, 2L, NOW);

    assertThat(plan(table, ONE_DAY).expiredSnapshotIds()).containsExactly(1L);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void tableMinSnapshotsToKeepKeepsOldAncestorsRegardlessOfAge(int formatVersion) {
    HistoryJson table = HistoryJson.table(formatVersion);
    for (long id = 1; id <= 6; id++) {
      table.commit(id, id == 1 ? null : id - 1, daysAgo(20 - id));
    }

    RetentionPlan plan = plan(table, new RetentionPolicy(3, DAY, Long.MAX_VALUE));

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void ancestorsPastTheFirstOldSnapshotBeyondTheCountExpireEvenIfYoung() {
    // A skewed clock wrote 1 after 2. The walk stops at 2 and 1 is the branch's history, not an
    // unreferenced snapshot, so the table-level age does not keep it.
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, NOW - HOUR)
            .commit(2, 1L, daysAgo(10))
            .commit(3, 2L, NOW);

    assertThat(plan(table, ONE_DAY).expiredSnapshotIds()).containsExactly(1L, 2L);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void branchWithOwnMinSnapshotsToKeepThreeKeepsThreeOldSnapshots(int formatVersion) {
    // main: 1 ← 2 (old) ← 3 (now); branch audit: 2 ← 10 ← 11 ← 12 ← 13, all old.
    HistoryJson table =
        HistoryJson.table(formatVersion)
            .commit(1, null, daysAgo(30))
            .commit(2, 1L, daysAgo(29))
            .snapshot(10, 2L, daysAgo(20))
            .snapshot(11, 10L, daysAgo(19))
            .snapshot(12, 11L, daysAgo(18))
            .snapshot(13, 12L, daysAgo(17))
            .commit(3, 2L, NOW)
            .branch("audit", 13, "min-snapshots-to-keep", 3);

    RetentionPlan plan = plan(table, ONE_DAY);

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 2L, 10L);
    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(11L, 12L, 13L, 3L);
    parsedByIceberg(plan.metadata());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void branchWithOwnMaxSnapshotAgeKeepsMoreThanTheTable(int formatVersion) {
    // main: 1 (10 days) ← 2 (now); branch long: 1 ← 20 (9 days) ← 21 (8 days).
    HistoryJson table =
        HistoryJson.table(formatVersion)
            .commit(1, null, daysAgo(10))
            .snapshot(20, 1L, daysAgo(9))
            .snapshot(21, 20L, daysAgo(8))
            .commit(2, 1L, NOW)
            .branch("long", 21, "max-snapshot-age-ms", 30 * DAY);

    RetentionPlan plan = plan(table, ONE_DAY);

    // 1 is older than main's day, but within the branch's 30 days: the branch keeps it.
    assertThat(plan.expiredSnapshotIds()).isEmpty();
  }

  @Test
  void branchWithOwnShorterMaxSnapshotAgeExpiresAncestorsTheTableAgeWouldKeep() {
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, daysAgo(50))
            .snapshot(20, 1L, NOW - 10 * HOUR)
            .snapshot(21, 20L, NOW - HOUR)
            .commit(2, 1L, NOW)
            .branch("short", 21, "max-snapshot-age-ms", 2 * HOUR);

    RetentionPlan plan = plan(table, ONE_DAY);

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 20L);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void tagOlderThanItsOwnMaxRefAgeIsDroppedAndItsSnapshotExpires(int formatVersion) {
    HistoryJson table =
        HistoryJson.table(formatVersion)
            .commit(1, null, daysAgo(10))
            .commit(2, 1L, daysAgo(9))
            .commit(3, 2L, NOW)
            .tag("weekly", 1, "max-ref-age-ms", 7 * DAY)
            .tag("forever", 2);

    RetentionPlan plan = plan(table, ONE_DAY);

    assertThat(plan.droppedRefs())
        .extracting(DroppedRef::name, DroppedRef::snapshotId)
        .containsExactly(tuple("weekly", 1L));
    assertThat(plan.droppedRefs().get(0).reason())
        .startsWith("older than max-ref-age-ms " + 7 * DAY);
    assertThat(plan.expiredSnapshotIds()).containsExactly(1L);
    assertThat(plan.metadata().refs()).containsOnlyKeys("main", "forever");
    assertThat(parsedByIceberg(plan.metadata()).refs()).containsOnlyKeys("main", "forever");
  }

  @Test
  void branchOlderThanTableMaxRefAgeIsDroppedWithItsHistory() {
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, daysAgo(30))
            .snapshot(10, 1L, daysAgo(20))
            .snapshot(11, 10L, daysAgo(10))
            .snapshot(20, 1L, daysAgo(3))
            .commit(2, 1L, NOW)
            .branch("stale", 11)
            .branch("fresh", 20);

    RetentionPlan plan = plan(table, new RetentionPolicy(1, DAY, 7 * DAY));

    assertThat(plan.droppedRefs()).extracting(DroppedRef::name).containsExactly("stale");
    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 10L, 11L);
    assertThat(plan.metadata().refs()).containsOnlyKeys("main", "fresh");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void mainIsNeverDroppedEvenWhenOlderThanMaxRefAge(int formatVersion) {
    HistoryJson table =
        HistoryJson.table(formatVersion).commit(1, null, daysAgo(40)).commit(2, 1L, daysAgo(30));
    table.json.with("refs").with("main").put("max-ref-age-ms", HOUR);

    RetentionPlan plan = plan(table, new RetentionPolicy(1, DAY, DAY));

    assertThat(plan.droppedRefs()).isEmpty();
    assertThat(plan.metadata().refs()).containsOnlyKeys("main");
    assertThat(plan.expiredSnapshotIds()).containsExactly(1L);
    assertThat(plan.metadata().currentSnapshotId()).contains(2L);
    parsedByIceberg(plan.metadata());
  }

  @Test
  void v1TableWithoutRefsTreatsTheCurrentSnapshotAsMain() {
    HistoryJson table = mainHistory(1).withoutRefs();

    RetentionPlan plan = plan(table, new RetentionPolicy(3, DAY, DAY));

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 2L);
    assertThat(plan.droppedRefs()).isEmpty();
    assertThat(plan.metadata().json().has("refs")).isFalse();
    assertThat(parsedByIceberg(plan.metadata()).ref("main").snapshotId()).isEqualTo(5L);
  }

  /** Iceberg's parser refuses such metadata, and so does ours: no expiry ever plans over it. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void aRefNamingAMissingSnapshotIsRefusedWhereTheMetadataIsRead(int formatVersion) {
    HistoryJson table = mainHistory(formatVersion).tag("lost", 999);

    assertThatThrownBy(() -> plan(table, ONE_DAY))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata test.metadata.json: ref 'lost' names snapshot 999, which is not among its snapshots");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void unreferencedYoungSnapshotIsKeptAndOldOneExpires(int formatVersion) {
    // Staged write-audit-publish snapshots: children of main's head that no ref names.
    HistoryJson table =
        HistoryJson.table(formatVersion)
            .commit(1, null, daysAgo(3))
            .snapshot(50, 1L, daysAgo(2))
            .snapshot(51, 1L, NOW - HOUR)
            .commit(2, 1L, NOW);

    RetentionPlan plan = plan(table, ONE_DAY);

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 50L);
    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(51L, 2L);
    parsedByIceberg(plan.metadata());
  }

  @Test
  void historyOfADroppedRefIsKeptWhileYoungerThanTheTableMaxSnapshotAge() {
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, daysAgo(3))
            .snapshot(10, 1L, NOW - 5 * HOUR)
            .snapshot(11, 10L, NOW - 3 * HOUR)
            .commit(2, 1L, NOW)
            .branch("hourly", 11, "max-ref-age-ms", HOUR);

    RetentionPlan plan = plan(table, ONE_DAY);

    assertThat(plan.droppedRefs()).extracting(DroppedRef::name).containsExactly("hourly");
    assertThat(plan.expiredSnapshotIds()).containsExactly(1L);
    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(10L, 11L, 2L);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void expireBeforeFuseProtectsSnapshotsAtOrAfterIt(int formatVersion) {
    RetentionPlan plan = plan(mainHistory(formatVersion), ONE_DAY, expireBefore(daysAgo(9)));

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L);
    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(2L, 3L, 4L, 5L);
  }

  @Test
  void expireBeforeLaterThanEverythingChangesNothingOfThePolicy() {
    RetentionPlan plan = plan(mainHistory(2), ONE_DAY, expireBefore(NOW + DAY));

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void retentionPeriodOverridesTheTableMaxSnapshotAge() {
    RetentionPlan plan = plan(mainHistory(2), ONE_DAY, overrides(9 * DAY, null));

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L);
  }

  @Test
  void retainLastOverridesTheTableMinSnapshotsToKeep() {
    RetentionPlan plan =
        plan(mainHistory(2), new RetentionPolicy(4, HOUR, Long.MAX_VALUE), overrides(null, 2));

    assertThat(plan.expiredSnapshotIds()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void retentionPeriodAndRetainLastDoNotOverrideARefsOwnValues() {
    // Branch short keeps its head only (own min 1, own age 1 hour), whatever this run says.
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, daysAgo(40))
            .snapshot(10, 1L, daysAgo(3))
            .snapshot(11, 10L, daysAgo(2))
            .snapshot(12, 11L, NOW - HOUR / 2)
            .commit(2, 1L, NOW)
            .branch("short", 12, "min-snapshots-to-keep", 1, "max-snapshot-age-ms", HOUR);

    RetentionPlan plan = plan(table, ONE_DAY, overrides(30 * DAY, 5));

    // main keeps 1 (retain_last 5 covers it); short's 10 and 11 are older than its own hour.
    assertThat(plan.expiredSnapshotIds()).containsExactly(10L, 11L);
  }

  @Test
  void retentionPeriodDoesNotOverrideARefsOwnMaxRefAge() {
    HistoryJson table =
        HistoryJson.table(2)
            .commit(1, null, daysAgo(3))
            .commit(2, 1L, NOW)
            .tag("t", 1, "max-ref-age-ms", DAY);

    RetentionPlan plan =
        plan(table, new RetentionPolicy(1, DAY, Long.MAX_VALUE), overrides(30 * DAY, 10));

    assertThat(plan.droppedRefs()).extracting(DroppedRef::name).containsExactly("t");
    // Dropped from the tag, 1 is still main's ancestor within retain_last 10.
    assertThat(plan.expiredSnapshotIds()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void snapshotIdsExpireExactlyThoseAndDropNoRefByAge(int formatVersion) {
    HistoryJson table = mainHistory(formatVersion).tag("old", 1, "max-ref-age-ms", HOUR);

    RetentionPlan plan = plan(table, ONE_DAY, snapshotIds(4L, 2L));

    // 4 is young and 3 old: the policy is bypassed both ways.
    assertThat(plan.expiredSnapshotIds()).containsExactly(2L, 4L);
    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(1L, 3L, 5L);
    assertThat(plan.droppedRefs()).isEmpty();
    assertThat(plan.metadata().refs()).containsOnlyKeys("main", "old");
    parsedByIceberg(plan.metadata());
  }

  @Test
  void snapshotIdsRefuseTheCurrentSnapshot() {
    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, snapshotIds(5L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot expire snapshot 5: it is the current snapshot");
  }

  @Test
  void snapshotIdsRefuseTheCurrentSnapshotOfAV1TableWithoutRefs() {
    assertThatThrownBy(() -> plan(mainHistory(1).withoutRefs(), ONE_DAY, snapshotIds(5L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot expire snapshot 5: it is the current snapshot");
  }

  @Test
  void snapshotIdsRefuseARefsSnapshot() {
    HistoryJson table = mainHistory(2).branch("dev", 3).tag("release", 3);

    assertThatThrownBy(() -> plan(table, ONE_DAY, snapshotIds(3L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot expire snapshot 3: ref 'dev' points at it");
  }

  @Test
  void snapshotIdsRefuseAnIdTheTableDoesNotHave() {
    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, snapshotIds(1L, 42L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot expire snapshot 42: the table has no such snapshot");
  }

  @Test
  void snapshotIdsRefuseASnapshotTheFuseProtects() {
    ExpireOptions options =
        new ExpireOptions(
            Optional.of(daysAgo(9)), Optional.empty(), Optional.empty(), Set.of(1L, 2L), false);

    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot expire snapshot 2: its timestamp-ms "
                + daysAgo(9)
                + " is not before expire_before "
                + daysAgo(9));
  }

  @Test
  void snapshotIdsBeforeTheFuseExpire() {
    ExpireOptions options =
        new ExpireOptions(
            Optional.of(daysAgo(9)), Optional.empty(), Optional.empty(), Set.of(1L), false);

    assertThat(plan(mainHistory(2), ONE_DAY, options).expiredSnapshotIds()).containsExactly(1L);
  }

  @Test
  void snapshotIdsCannotBeCombinedWithRetentionPeriodOrRetainLast() {
    String message =
        "Cannot expire snapshots: snapshot_ids cannot be combined with retention_period or retain_last";
    ExpireOptions withPeriod =
        new ExpireOptions(Optional.empty(), Optional.of(DAY), Optional.empty(), Set.of(1L), false);
    ExpireOptions withRetainLast =
        new ExpireOptions(Optional.empty(), Optional.empty(), Optional.of(2), Set.of(1L), false);

    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, withPeriod))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, withRetainLast))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void retainLastBelowOneAndNegativeRetentionPeriodAreRefused() {
    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, overrides(null, 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot expire snapshots: retain_last must be at least 1, got 0");
    assertThatThrownBy(() -> plan(mainHistory(2), ONE_DAY, overrides(-1L, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot expire snapshots: retention_period must not be negative, got -1 ms");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void snapshotLogDropsExpiredEntriesAndEveryEntryBeforeTheLastOne(int formatVersion) {
    // Log 1, 2, 3, 4, 5; tag keeps 2, so 1 and 3 expire: 2 precedes the gap at 3 and goes too.
    HistoryJson table = mainHistory(formatVersion).tag("kept", 2);

    RetentionPlan plan = plan(table, ONE_DAY, snapshotIds(1L, 3L));

    assertThat(snapshotIdsOf(plan.metadata())).containsExactly(2L, 4L, 5L);
    assertThat(plan.metadata().snapshotLog())
        .extracting(TableMetadata.SnapshotLogEntry::snapshotId)
        .containsExactly(4L, 5L);
    assertThat(parsedByIceberg(plan.metadata()).snapshotLog()).hasSize(2);
  }

  @Test
  void snapshotLogIsCutAtTheLastRemovedEntryWhereverItIs() {
    HistoryJson table = mainHistory(2).tag("kept", 1);

    RetentionPlan plan = plan(table, ONE_DAY, snapshotIds(4L));

    assertThat(plan.metadata().snapshotLog())
        .extracting(TableMetadata.SnapshotLogEntry::snapshotId)
        .containsExactly(5L);
    RetentionPlan none = plan(table, ONE_DAY, snapshotIds(2L, 3L));
    assertThat(none.metadata().snapshotLog())
        .extracting(TableMetadata.SnapshotLogEntry::snapshotId)
        .containsExactly(4L, 5L);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void statisticsOfExpiredSnapshotsAreRemoved(int formatVersion) {
    HistoryJson table =
        mainHistory(formatVersion)
            .statistics(1)
            .statistics(5)
            .partitionStatistics(2)
            .partitionStatistics(5);

    RetentionPlan plan = plan(table, ONE_DAY);

    JsonNode json = plan.metadata().json();
    assertThat(json.get("statistics"))
        .extracting(s -> s.get("snapshot-id").asLong())
        .containsExactly(5L);
    assertThat(json.get("partition-statistics"))
        .extracting(s -> s.get("snapshot-id").asLong())
        .containsExactly(5L);
    org.apache.iceberg.TableMetadata iceberg = parsedByIceberg(plan.metadata());
    assertThat(iceberg.statisticsFiles()).hasSize(1);
    assertThat(iceberg.partitionStatisticsFiles()).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void unknownFieldsMetadataLogAndLastUpdatedMsAreLeftAsTheyWere(int formatVersion) {
    HistoryJson table =
        mainHistory(formatVersion)
            .logMetadataFile(daysAgo(9), HistoryJson.LOCATION + "/metadata/v1.metadata.json");
    table.json.put("unknown-future-field", "kept");
    table.json.with("refs").with("main").put("unknown-ref-field", 7);
    TableMetadata replica = table.build();

    RetentionPlan plan = RetentionPlanner.plan(replica, ONE_DAY, ExpireOptions.defaults(), NOW);

    JsonNode out = plan.metadata().json();
    assertThat(out.get("unknown-future-field").asText()).isEqualTo("kept");
    assertThat(out.get("refs").get("main").get("unknown-ref-field").asInt()).isEqualTo(7);
    assertThat(out.get("metadata-log")).isEqualTo(replica.json().get("metadata-log"));
    assertThat(out.get("last-updated-ms")).isEqualTo(replica.json().get("last-updated-ms"));
    assertThat(out.get("current-snapshot-id").asLong()).isEqualTo(5L);
    // The input is never modified.
    assertThat(snapshotIdsOf(replica)).containsExactly(1L, 2L, 3L, 4L, 5L);
  }

  @Test
  void expiredIdsFollowTheMetadataOrderAndDroppedRefsAreSortedByName() {
    HistoryJson table =
        HistoryJson.table(2)
            .snapshot(30, null, daysAgo(10))
            .snapshot(10, null, daysAgo(12))
            .commit(20, null, NOW)
            .tag("zeta", 10, "max-ref-age-ms", DAY)
            .tag("alpha", 30, "max-ref-age-ms", DAY)
            .tag("mid", 10, "max-ref-age-ms", DAY);

    RetentionPlan plan = plan(table, ONE_DAY);

    assertThat(plan.expiredSnapshotIds()).containsExactly(30L, 10L);
    assertThat(plan.droppedRefs())
        .extracting(DroppedRef::name)
        .containsExactly("alpha", "mid", "zeta");
  }

  @Test
  void dryRunPlansTheSameAsARealRun() {
    HistoryJson table = mainHistory(2).tag("weekly", 1, "max-ref-age-ms", DAY);
    ExpireOptions dry =
        new ExpireOptions(Optional.empty(), Optional.empty(), Optional.empty(), Set.of(), true);

    RetentionPlan real = plan(table, ONE_DAY);
    RetentionPlan dryRun = plan(table, ONE_DAY, dry);

    assertThat(dryRun.expiredSnapshotIds()).isEqualTo(real.expiredSnapshotIds()).isNotEmpty();
    assertThat(dryRun.droppedRefs()).isEqualTo(real.droppedRefs()).isNotEmpty();
    assertThat(dryRun.metadata().json()).isEqualTo(real.metadata().json());
  }

  @Test
  void emptyTableHasNothingToExpire() {
    RetentionPlan plan = plan(HistoryJson.table(2), ONE_DAY);

    assertThat(plan.expiredSnapshotIds()).isEmpty();
    parsedByIceberg(plan.metadata());
  }

  @Test
  void refWithANonPositiveRetentionFieldIsRefused() {
    HistoryJson table = mainHistory(2).branch("b", 4, "min-snapshots-to-keep", 0);

    assertThatThrownBy(() -> plan(table, ONE_DAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot read ref 'b': min-snapshots-to-keep must be a positive whole number, got 0");
  }

  @Test
  void resultRoundTripsThroughTheReplicatorsOwnParser() {
    RetentionPlan plan = plan(mainHistory(3).tag("t", 4), ONE_DAY);

    TableMetadata reread =
        TableMetadataParser.read(TableMetadataParser.toJson(plan.metadata()), "reread.json");

    // Compared as written bytes: Jackson's int and long nodes of one number are not equal.
    assertThat(TableMetadataParser.toJson(reread))
        .isEqualTo(TableMetadataParser.toJson(plan.metadata()));
  }
}
