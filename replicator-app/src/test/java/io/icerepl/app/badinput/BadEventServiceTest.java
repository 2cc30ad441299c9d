package io.icerepl.app.badinput;

import static io.icerepl.app.badinput.Campaign.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3Warehouse;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad or unexpected SQS messages at service level: each ends acknowledged or in the dead-letter
 * queue, none stays on the queue, nothing is replicated that should not be, and the healthy table
 * keeps replicating. Shares one service with the other campaign class ({@link Campaign}).
 */
class BadEventServiceTest {
  @BeforeAll
  static void startService() {
    Campaign.start();
  }

  @AfterAll
  static void releaseService() {
    Campaign.finished(BadEventServiceTest.class);
  }

  @Test
  void anEventForANonMetadataKeyIsAcknowledgedAndTriggersNothing() {
    Table quiet = create("quiet"); // committed, never announced
    DataFile file = append(quiet, 2);
    publishKey(key(file.location()));
    publishKey("warehouse/ns/quiet/metadata/snap-1-1-" + UUID.randomUUID() + ".avro");

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    assertThat(status("quiet")).as("status of ns/quiet").isEmpty();
    assertThat(replicaObjects("quiet")).isEmpty();
  }

  @Test
  void aMalformedMessageEndsInTheDeadLetterQueueWithoutBlockingOthers() {
    String marker = "malformed-" + UUID.randomUUID();
    send("{\"Records\": [ not json " + marker);
    // a record without its key: parsed, but refused
    String missingKey =
        "{\"Records\":[{\"eventName\":\"ObjectCreated:Put\",\"s3\":{\"bucket\":{\"name\":\"source\"},"
            + "\"object\":{\"size\":1}}}],\"marker\":\"nokey-"
            + marker
            + "\"}";
    send(missingKey);
    healthyTableKeepsReplicating();

    assertThat(awaitDeadLettered("nokey-" + marker)).isEqualTo(missingKey);
    assertThat(awaitDeadLettered("not json " + marker))
        .isEqualTo("{\"Records\": [ not json " + marker);
    awaitQueueDrained();
  }

  @Test
  void anEventWithThousandsOfRecordsIsRefusedAsAFloodAndDeadLetteredWithoutBlockingOthers() {
    Table big = create("big_event");
    append(big, 1);
    String marker = "flood-" + UUID.randomUUID();
    StringBuilder body = new StringBuilder("{\"marker\":\"" + marker + "\",\"Records\":[");
    // minimal records (eventName defaults to ObjectCreated), each for a data file: thousands of
    // them,
    // far over replicator.limits.records-per-message
    int n = 0;
    while (body.length() < 200 * 1024) {
      body.append(
          String.format(
              "{\"s3\":{\"bucket\":{\"name\":\"source\"},\"object\":{\"key\":\"warehouse/ns/big_event/data/p%05d.parquet\"}}},",
              n++));
    }
    String head = S3EventMessages.objectCreated(SOURCE, key(metadataFile(big)), 1);
    body.append(head, head.indexOf('[') + 1, head.lastIndexOf(']')).append("]}");
    assertThat(n).isGreaterThan(1000);
    send(body.toString());

    assertThat(awaitDeadLettered(marker)).hasSize(body.length());
    awaitQueueDrained();
    healthyTableKeepsReplicating();
  }

  @Test
  void anOversizedBodyTheParserRejectsEndsInTheDeadLetterQueueWithoutBlockingOthers() {
    String marker = "oversized-" + UUID.randomUUID();
    String body =
        "{\"marker\":\"" + marker + "\",\"Records\":[" + "{\"s3\":{},".repeat(200 * 1024 / 9);
    send(body);
    healthyTableKeepsReplicating();

    assertThat(awaitDeadLettered(marker)).hasSize(body.length());
    awaitQueueDrained();
  }

  @Test
  void anEventForATableNoRuleCoversIsAcknowledgedAndIgnored() {
    try (S3Warehouse elsewhere =
        new S3Warehouse(
            "s3://source/elsewhere",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY)) {
      Table stray =
          elsewhere.create(
              "ns",
              "stray",
              SCHEMA,
              PartitionSpec.unpartitioned(),
              java.util.Map.of("format-version", "2"));
      append(stray, 1);
      publish(stray);
      // and one from a bucket no rule reads
      send(
          S3EventMessages.objectCreated(
              "other-bucket",
              "warehouse/ns/stray/metadata/00001-" + UUID.randomUUID() + ".metadata.json",
              1));
    }

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    assertThat(status("stray")).isEmpty();
    for (com.fasterxml.jackson.databind.JsonNode s : service.http.get("/api/replications").json()) {
      assertThat(s.path("sourceLocation").asText()).startsWith("s3://source/warehouse/");
    }
    assertThat(keys(REPLICA, "")).allSatisfy(k -> assertThat(k).doesNotContain("stray"));
  }

  @Test
  void anSnsNotificationWrappingAMalformedMessageEndsInTheDeadLetterQueue() {
    String marker = "sns-" + UUID.randomUUID();
    String body =
        "{\"Type\":\"Notification\",\"MessageId\":\""
            + marker
            + "\",\"Message\":\"{\\\"Records\\\": [ cut\"}";
    send(body);
    healthyTableKeepsReplicating();

    assertThat(awaitDeadLettered(marker)).isEqualTo(body);
    awaitQueueDrained();
  }

  @Test
  void aKeyWithABrokenPercentEncodingEndsInTheDeadLetterQueue() {
    String marker = "percent-" + UUID.randomUUID();
    String body =
        S3EventMessages.objectCreated(
                SOURCE, "warehouse/ns/x/metadata/" + marker + ".metadata.json", 1)
            .replace(marker, marker + "%ZZ");
    send(body);
    healthyTableKeepsReplicating();

    assertThat(awaitDeadLettered(marker)).isEqualTo(body);
    awaitQueueDrained();
    assertThat(status("x")).isEmpty();
  }

  @Test
  void s3TestEventsAndRemovalsAreAcknowledgedAndTriggerNothing() {
    Table removed = create("removed"); // committed, never announced as created
    append(removed, 1);
    send(
        "{\"Service\":\"Amazon S3\",\"Event\":\"s3:TestEvent\",\"Time\":\"2026-01-01T00:00:00Z\",\"Bucket\":\"source\"}");
    send(
        S3EventMessages.objectCreated(SOURCE, key(metadataFile(removed)), 1)
            .replace("ObjectCreated:Put", "ObjectRemoved:Delete"));

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    assertThat(status("removed")).isEmpty();
    assertThat(replicaObjects("removed")).isEmpty();
  }

  @Test
  void anEventWhoseKeyClimbsOutOfTheRulesPrefixWritesNothingOutsideTheTargetPrefix() {
    publishClimbingEvent("climber");

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    assertThat(keys(REPLICA, ""))
        .allSatisfy(k -> assertThat(k).matches("warehouse/ns/[a-z_]+/.*|\\.replicator-locks/.*"));
  }

  @Test
  void anEventWhoseKeyClimbsOutOfTheRulesPrefixIsNotTakenForATableOfTheRule() {
    publishClimbingEvent("climb2");

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    for (com.fasterxml.jackson.databind.JsonNode s : service.http.get("/api/replications").json()) {
      assertThat(s.path("table").asText()).as("status %s", s).doesNotContain("..");
    }
  }

  @Test
  void anEventForAMetadataFileOfNoTableIsIgnoredAndLeavesNoStatus() {
    publishKey("warehouse/ns/ghost/metadata/00001-" + UUID.randomUUID() + ".metadata.json");

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    // no table there: no lane, no status entry, nothing on the replica
    assertThat(status("ghost")).isEmpty();
    assertThat(replicaObjects("ghost")).isEmpty();
  }

  /**
   * A real table at s3://source/elsewhere/ns/{name}, announced by a key that climbs there from the
   * rule's prefix.
   */
  private static void publishClimbingEvent(String name) {
    try (S3Warehouse elsewhere =
        new S3Warehouse(
            "s3://source/elsewhere",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY)) {
      Table climber =
          elsewhere.create(
              "ns",
              name,
              SCHEMA,
              PartitionSpec.unpartitioned(),
              java.util.Map.of("format-version", "2"));
      append(climber, 1);
      publishKey("warehouse/../" + key(metadataFile(climber)));
    }
  }
}
