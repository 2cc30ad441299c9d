package io.icerepl.app.badinput;

import static io.icerepl.app.badinput.Campaign.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.demo.S3Warehouse;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3EventMessages;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad or unexpected SQS messages at service level: each ends acknowledged or in the dead-letter
 * queue, none stays on the queue, nothing is replicated that should not be, and the healthy table
 * keeps replicating.
 */
class BadEventServiceTest {
  @BeforeAll
  static void startService() {
    Campaign.start();
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
    String missingKey = "{\"Records\":[{\"eventName\":\"ObjectCreated:Put\",\"s3\":{\"bucket\":{\"name\":\"source\"},"
        + "\"object\":{\"size\":1}}}],\"marker\":\"" + marker + "-nokey\"}";
    send(missingKey);
    healthyTableKeepsReplicating();

    assertThat(awaitDeadLettered(marker + "-nokey").body()).isEqualTo(missingKey);
    assertThat(awaitDeadLettered(marker).body()).startsWith("{\"Records\": [ not json");
    awaitQueueDrained();
  }

  @Test
  void anOversizedEventWithThousandsOfRecordsIsProcessedAndAcknowledged() {
    Table big = create("big_event");
    append(big, 1);
    StringBuilder body = new StringBuilder("{\"Records\":[");
    String record = S3EventMessages.objectCreated(SOURCE, "warehouse/ns/big_event/data/part-%05d.parquet", 1);
    String inner = record.substring(record.indexOf('[') + 1, record.lastIndexOf(']'));
    int n = 0;
    while (body.length() < 200 * 1024) {
      body.append(inner.replace("%05d", String.format("%05d", n++))).append(',');
    }
    String head = S3EventMessages.objectCreated(SOURCE, key(metadataFile(big)), 1);
    body.append(head, head.indexOf('[') + 1, head.lastIndexOf(']')).append("]}");
    assertThat(n).isGreaterThan(1000);
    send(body.toString());

    awaitInSync("big_event");
    awaitQueueDrained();
    healthyTableKeepsReplicating();
  }

  @Test
  void anOversizedBodyTheParserRejectsEndsInTheDeadLetterQueueWithoutBlockingOthers() {
    String marker = "oversized-" + UUID.randomUUID();
    String body = "{\"marker\":\"" + marker + "\",\"Records\":[" + "{\"s3\":{},".repeat(200 * 1024 / 9);
    send(body);
    healthyTableKeepsReplicating();

    assertThat(awaitDeadLettered(marker).body()).hasSize(body.length());
    awaitQueueDrained();
  }

  @Test
  void anEventForATableNoRuleCoversIsAcknowledgedAndIgnored() {
    try (S3Warehouse elsewhere =
        new S3Warehouse("s3://source/elsewhere", s3.endpoint(), "us-east-1", EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY)) {
      Table stray = elsewhere.create("ns", "stray", SCHEMA, PartitionSpec.unpartitioned(), java.util.Map.of("format-version", "2"));
      append(stray, 1);
      publish(stray);
      // and one from a bucket no rule reads
      send(S3EventMessages.objectCreated("other-bucket", "warehouse/ns/stray/metadata/00001-" + UUID.randomUUID() + ".metadata.json", 1));
    }

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    assertThat(status("stray")).isEmpty();
    for (com.fasterxml.jackson.databind.JsonNode s : service.http.get("/api/replications").json()) {
      assertThat(s.path("sourceLocation").asText()).startsWith("s3://source/warehouse/");
    }
    assertThat(objects(REPLICA, "")).allSatisfy((k, v) -> assertThat(k).doesNotContain("stray"));
  }
}
