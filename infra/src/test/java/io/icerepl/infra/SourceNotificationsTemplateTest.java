package io.icerepl.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The source-region template: notifications, queue, dead-letter queue and their policy. */
class SourceNotificationsTemplateTest {

  private final Template template = Template.load(Template.SOURCE_NOTIFICATIONS);

  @Test
  void notificationsSendNewMetadataFilesUnderTheSourcePrefixToTheQueue() {
    JsonNode attached =
        template.properties("SourceBucket").path("NotificationConfiguration").path("Fn::If");
    assertThat(attached.get(0).asText()).isEqualTo("AttachesNotifications");
    assertThat(Template.render(attached.get(2))).isEqualTo("${AWS::NoValue}");

    List<String> suffixes = new ArrayList<>();
    for (JsonNode configuration : attached.get(1).path("QueueConfigurations")) {
      assertThat(configuration.path("Event").asText()).isEqualTo("s3:ObjectCreated:*");
      assertThat(Template.render(configuration.path("Queue"))).isEqualTo("${CommitEventQueue.Arn}");
      Map<String, String> rules = new java.util.HashMap<>();
      configuration
          .path("Filter")
          .path("S3Key")
          .path("Rules")
          .forEach(r -> rules.put(r.path("Name").asText(), Template.render(r.path("Value"))));
      assertThat(rules)
          .containsOnlyKeys("prefix", "suffix")
          .containsEntry("prefix", "${SourcePrefix}");
      suffixes.add(rules.get("suffix"));
    }
    assertThat(suffixes)
        .containsExactlyInAnyOrder(".metadata.json", ".metadata.json.gz", "version-hint.text");
  }

  @Test
  void notificationsGoOnlyToTheQueue() {
    JsonNode configuration =
        template.properties("SourceBucket").path("NotificationConfiguration").path("Fn::If").get(1);
    assertThat(configuration.has("TopicConfigurations")).isFalse();
    assertThat(configuration.has("LambdaConfigurations")).isFalse();
  }

  @Test
  void sourceBucketIsTheExistingBucketAndIsNeverDeleted() {
    JsonNode bucket = template.resource("SourceBucket");
    assertThat(Template.render(bucket.path("Properties").path("BucketName")))
        .isEqualTo("${SourceBucketName}");
    assertThat(bucket.path("DeletionPolicy").asText()).isEqualTo("Retain");
    assertThat(bucket.path("UpdateReplacePolicy").asText()).isEqualTo("Retain");
    // S3 tests the destination when the configuration is put: the queue policy must exist first.
    assertThat(Template.renderAll(bucket.path("DependsOn"))).contains("CommitEventQueuePolicy");
    assertThat(bucket.path("Properties").fieldNames())
        .toIterable()
        .containsOnly("BucketName", "NotificationConfiguration");
  }

  @Test
  void queueRedrivesToTheDeadLetterQueue() {
    JsonNode redrive = template.properties("CommitEventQueue").path("RedrivePolicy");
    assertThat(Template.render(redrive.path("deadLetterTargetArn")))
        .isEqualTo("${DeadLetterQueue.Arn}");
    assertThat(Template.render(redrive.path("maxReceiveCount"))).isEqualTo("${MaxReceiveCount}");
    assertThat(template.section("Parameters").get("MaxReceiveCount").path("Default").asInt())
        .isEqualTo(5);
    assertThat(template.properties("DeadLetterQueue").path("MessageRetentionPeriod").asInt())
        .isGreaterThan(
            template.properties("CommitEventQueue").path("MessageRetentionPeriod").asInt());
  }

  @Test
  void queuesAreEncrypted() {
    for (String queue : List.of("CommitEventQueue", "DeadLetterQueue")) {
      JsonNode properties = template.properties(queue);
      assertThat(
              properties.path("SqsManagedSseEnabled").asBoolean()
                  || properties.has("KmsMasterKeyId"))
          .as(queue)
          .isTrue();
    }
  }

  @Test
  void queuePolicyAllowsOnlyS3SendingForTheSourceBucketOfThisAccount() {
    JsonNode policy = template.properties("CommitEventQueuePolicy");
    assertThat(Template.renderAll(policy.path("Queues"))).containsExactly("${CommitEventQueue}");
    List<Statement> statements =
        Statement.of("CommitEventQueuePolicy", policy.path("PolicyDocument"));
    assertThat(statements).hasSize(1);
    Statement allow = statements.get(0);

    assertThat(allow.allows()).isTrue();
    assertThat(allow.principal().path("Service").asText()).isEqualTo("s3.amazonaws.com");
    assertThat(allow.principal().size()).isEqualTo(1);
    assertThat(allow.actions()).containsExactly("sqs:SendMessage");
    assertThat(allow.resources()).containsExactly("${CommitEventQueue.Arn}");
    assertThat(Template.render(allow.condition().path("ArnEquals").path("aws:SourceArn")))
        .isEqualTo("arn:${AWS::Partition}:s3:::${SourceBucketName}");
    assertThat(Template.render(allow.condition().path("StringEquals").path("aws:SourceAccount")))
        .isEqualTo("${AWS::AccountId}");
  }

  @Test
  void deadLetterQueueAlarmFiresOnAnyVisibleMessage() {
    JsonNode alarm = template.properties("DeadLetterQueueAlarm");
    assertThat(alarm.path("Namespace").asText()).isEqualTo("AWS/SQS");
    assertThat(alarm.path("MetricName").asText()).isEqualTo("ApproximateNumberOfMessagesVisible");
    JsonNode dimension = alarm.path("Dimensions").get(0);
    assertThat(dimension.path("Name").asText()).isEqualTo("QueueName");
    assertThat(Template.render(dimension.path("Value"))).isEqualTo("${DeadLetterQueue.QueueName}");
    assertThat(alarm.path("Threshold").asInt()).isZero();
    assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
  }

  @Test
  void outputsTheQueueForTheReplicatorStack() {
    Map<String, JsonNode> outputs = template.section("Outputs");
    assertThat(Template.render(outputs.get("QueueArn").path("Value")))
        .isEqualTo("${CommitEventQueue.Arn}");
    assertThat(Template.render(outputs.get("QueueUrl").path("Value")))
        .isEqualTo("${CommitEventQueue}");
    assertThat(Template.render(outputs.get("DeadLetterQueueUrl").path("Value")))
        .isEqualTo("${DeadLetterQueue}");
    assertThat(Template.render(outputs.get("DeadLetterQueueArn").path("Value")))
        .isEqualTo("${DeadLetterQueue.Arn}");
    // replicator.yaml takes them as parameters of the same names
    assertThat(Template.load(Template.REPLICATOR).section("Parameters"))
        .containsKeys("QueueArn", "QueueUrl", "DeadLetterQueueArn", "DeadLetterQueueUrl");
  }
}
