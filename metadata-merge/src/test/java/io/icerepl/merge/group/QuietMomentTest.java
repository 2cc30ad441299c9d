package io.icerepl.merge.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The quiet moment against its definition, checked moment by moment: the latest multiple of the
 * granularity at or before the asked moment with no snapshot stamped and no {@code snapshot-log}
 * entry in the window up to and including it. Random histories of two tables, their snapshots and
 * log entries in no particular order (a rollback logs an older snapshot anew), with bursts that
 * leave no quiet moment for a while.
 */
class QuietMomentTest {
  @Test
  void theQuietMomentIsTheLatestOneWithNoChangeInTheWindowBeforeIt() {
    Random random = new Random(48);
    int checked = 0;
    for (int history = 0; history < 200; history++) {
      List<List<Long>> stamps = new ArrayList<>();
      List<List<Long>> logged = new ArrayList<>();
      List<TableMetadata> tables = new ArrayList<>();
      for (int table = 0; table < 2; table++) {
        List<Long> snapshotTimes = new ArrayList<>();
        List<Long> logTimes = new ArrayList<>();
        long at = 10_000;
        for (int i = 0; i < 1 + random.nextInt(30); i++) {
          at += random.nextBoolean() ? random.nextInt(200) : random.nextInt(3000);
          snapshotTimes.add(at);
          logTimes.add(random.nextInt(4) == 0 ? at + random.nextInt(500) : at);
        }
        java.util.Collections.shuffle(snapshotTimes, random);
        stamps.add(snapshotTimes);
        logged.add(logTimes);
        tables.add(table(table, snapshotTimes, logTimes));
      }
      long granularity = random.nextBoolean() ? 1 : 1000;
      Duration window = Duration.ofMillis(random.nextInt(1500));
      long atMs = 9_000 + random.nextInt(60_000);
      long expected = byDefinition(atMs, granularity, window.toMillis(), stamps, logged);
      assertThat(QuietMoment.before(atMs, granularity, window, tables))
          .as("history %d at %d, window %s, granularity %d", history, atMs, window, granularity)
          .isEqualTo(expected);
      checked++;
    }
    assertThat(checked).isEqualTo(200);
  }

  /** Every candidate moment from the asked one back, until one has nothing in its window. */
  private static long byDefinition(
      long atMs,
      long granularity,
      long windowMs,
      List<List<Long>> stamps,
      List<List<Long>> logged) {
    long moment = Math.floorDiv(atMs, granularity) * granularity;
    if (windowMs <= 0) {
      return moment;
    }
    while (true) {
      long candidate = moment;
      boolean quiet =
          java.util.stream.Stream.concat(stamps.stream(), logged.stream())
              .flatMap(List::stream)
              .noneMatch(at -> at > candidate - windowMs && at <= candidate);
      if (quiet) {
        return moment;
      }
      moment -= granularity;
    }
  }

  private static TableMetadata table(int table, List<Long> snapshotTimes, List<Long> logTimes) {
    StringBuilder snapshots = new StringBuilder();
    for (int i = 0; i < snapshotTimes.size(); i++) {
      snapshots
          .append(i == 0 ? "" : ",")
          .append("{\"snapshot-id\":")
          .append(i + 1)
          .append(",\"timestamp-ms\":")
          .append(snapshotTimes.get(i))
          .append(",\"sequence-number\":")
          .append(i + 1)
          .append(",\"summary\":{\"operation\":\"append\"},\"manifest-list\":\"s3://b/t/snap-")
          .append(i + 1)
          .append(".avro\"}");
    }
    StringBuilder log = new StringBuilder();
    for (int i = 0; i < logTimes.size(); i++) {
      log.append(i == 0 ? "" : ",")
          .append("{\"snapshot-id\":")
          .append(i + 1)
          .append(",\"timestamp-ms\":")
          .append(logTimes.get(i))
          .append('}');
    }
    String json =
        "{\"format-version\":2,\"table-uuid\":\"u"
            + table
            + "\",\"location\":\"s3://b/t"
            + table
            + "\",\"last-sequence-number\":100,\"last-updated-ms\":1,\"last-column-id\":1,"
            + "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
            + "\"fields\":[]}],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,"
            + "\"fields\":[]}],\"last-partition-id\":999,\"default-sort-order-id\":0,"
            + "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"snapshots\":["
            + snapshots
            + "],\"snapshot-log\":["
            + log
            + "]}";
    return TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "t" + table + ".json");
  }
}
