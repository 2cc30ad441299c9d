package io.icerepl.app.service.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.service.HintedReplica;
import io.icerepl.app.service.RunningService;
import io.icerepl.fixtures.IdAppends;
import io.icerepl.localstack.S3Warehouse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Event;
import software.amazon.awssdk.services.s3.model.FilterRuleName;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The end-to-end scenario on LocalStack, where S3 itself sends the bucket notifications to SQS: a
 * source table committed by the Iceberg library, replicated by the service, read back by the
 * Iceberg library. Skipped where no Docker engine runs; the embedded S3 and SQS run the same
 * scenario everywhere (S3ReplicationServiceTest).
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackReplicationTest {
  @Container
  static final LocalStackContainer LOCALSTACK =
      new LocalStackContainer(DockerImageName.parse("localstack/localstack:4.0.3"))
          .withServices(LocalStackContainer.Service.S3, LocalStackContainer.Service.SQS);

  @Test
  void s3NotificationsDriveTheReplicationOfATableWrittenByIceberg() throws Exception {
    var credentials =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(LOCALSTACK.getAccessKey(), LOCALSTACK.getSecretKey()));
    String endpoint = LOCALSTACK.getEndpoint().toString();
    try (S3Client s3 =
            S3Client.builder()
                .endpointOverride(LOCALSTACK.getEndpoint())
                .region(Region.of(LOCALSTACK.getRegion()))
                .credentialsProvider(credentials)
                .forcePathStyle(true)
                .build();
        SqsClient sqs =
            SqsClient.builder()
                .endpointOverride(LOCALSTACK.getEndpoint())
                .region(Region.of(LOCALSTACK.getRegion()))
                .credentialsProvider(credentials)
                .build()) {
      s3.createBucket(b -> b.bucket("source"));
      s3.createBucket(b -> b.bucket("replica"));
      String queueUrl = sqs.createQueue(b -> b.queueName("events")).queueUrl();
      String queueArn =
          sqs.getQueueAttributes(
                  b -> b.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
              .attributes()
              .get(QueueAttributeName.QUEUE_ARN);
      s3.putBucketNotificationConfiguration(
          b ->
              b.bucket("source")
                  .notificationConfiguration(
                      n ->
                          n.queueConfigurations(
                              q ->
                                  q.queueArn(queueArn)
                                      .events(Event.S3_OBJECT_CREATED)
                                      .filter(
                                          f ->
                                              f.key(
                                                  k ->
                                                      k.filterRules(
                                                          r ->
                                                              r.name(FilterRuleName.SUFFIX)
                                                                  .value(".metadata.json")))))));

      Map<String, String> properties = new HashMap<>();
      properties.put("replicator.rules[0].name", "lake");
      properties.put("replicator.rules[0].source", "s3://source/warehouse");
      properties.put("replicator.rules[0].targets[0].name", "replica");
      properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/warehouse");
      for (String side : List.of("source", "target")) {
        properties.put("replicator.s3." + side + ".endpoint", endpoint);
        properties.put("replicator.s3." + side + ".region", LOCALSTACK.getRegion());
        properties.put("replicator.s3." + side + ".access-key-id", LOCALSTACK.getAccessKey());
        properties.put("replicator.s3." + side + ".secret-access-key", LOCALSTACK.getSecretKey());
        properties.put("replicator.s3." + side + ".path-style", "true");
      }
      properties.put("replicator.reconciliation-interval", "PT1H");
      properties.put("replicator.sqs.enabled", "true");
      properties.put("replicator.sqs.queue", "events");
      properties.put("spring.cloud.aws.sqs.endpoint", endpoint);
      properties.put("spring.cloud.aws.region.static", LOCALSTACK.getRegion());
      properties.put("spring.cloud.aws.credentials.access-key", LOCALSTACK.getAccessKey());
      properties.put("spring.cloud.aws.credentials.secret-key", LOCALSTACK.getSecretKey());

      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      try (RunningService service = RunningService.start(properties);
          S3Warehouse warehouse =
              new S3Warehouse(
                  "s3://source/warehouse",
                  LOCALSTACK.getEndpoint(),
                  LOCALSTACK.getRegion(),
                  LOCALSTACK.getAccessKey(),
                  LOCALSTACK.getSecretKey());
          S3FileIO io = new S3FileIO()) {
        Table table =
            warehouse.create(
                "ns", "t", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
        Map<Long, List<String>> rows = new HashMap<>();
        for (long i = 0; i < 3; i++) {
          IdAppends.append(table, i);
          rows.put(
              table.currentSnapshot().snapshotId(),
              SourceTable.rows(table, table.currentSnapshot().snapshotId()));
        }

        await()
            .atMost(Duration.ofSeconds(120))
            .untilAsserted(
                () ->
                    assertThat(
                            service
                                .http
                                .get("/api/replications/replica/ns/t")
                                .json()
                                .path("lastSourceMetadataFile")
                                .asText())
                        .isEqualTo(S3Warehouse.metadataFile(table)));
        io.initialize(
            Map.of(
                "s3.endpoint",
                endpoint,
                "s3.path-style-access",
                "true",
                "client.region",
                LOCALSTACK.getRegion(),
                "s3.access-key-id",
                LOCALSTACK.getAccessKey(),
                "s3.secret-access-key",
                LOCALSTACK.getSecretKey()));
        Table replica = HintedReplica.open(io, "s3://replica/warehouse/ns/t");
        assertThat(replica.currentSnapshot().snapshotId())
            .isEqualTo(table.currentSnapshot().snapshotId());
        for (Snapshot snapshot : table.snapshots()) {
          assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
              .isEqualTo(rows.get(snapshot.snapshotId()));
        }
      }
    }
  }
}
