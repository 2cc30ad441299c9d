package io.icerepl.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

class EmbeddedServicesTest {
  @Test
  void embeddedS3RefusesASecondCreateOfTheSameKey() {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Client client = s3.client()) {
      s3.createBucket("bucket");
      PutObjectRequest create =
          PutObjectRequest.builder()
              .bucket("bucket")
              .key("t/metadata/v1.metadata.json")
              .ifNoneMatch("*")
              .build();
      client.putObject(create, RequestBody.fromString("first"));
      assertThatThrownBy(() -> client.putObject(create, RequestBody.fromString("second")))
          .isInstanceOfSatisfying(
              S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
      assertThat(
              client
                  .getObjectAsBytes(b -> b.bucket("bucket").key("t/metadata/v1.metadata.json"))
                  .asUtf8String())
          .isEqualTo("first");
    }
  }

  @Test
  void embeddedSqsDeliversAndRedrivesToTheDeadLetterQueue() throws Exception {
    try (EmbeddedSqs sqs = EmbeddedSqs.start();
        SqsClient client = sqs.client()) {
      String url = sqs.createQueueWithDeadLetterQueue("events", 1, 1);
      client.sendMessage(
          SendMessageRequest.builder()
              .queueUrl(url)
              .messageBody(S3EventMessages.objectCreated("b", "t/metadata/v 1.metadata.json", 3))
              .build());
      Message message =
          client
              .receiveMessage(
                  ReceiveMessageRequest.builder().queueUrl(url).waitTimeSeconds(2).build())
              .messages()
              .get(0);
      assertThat(message.body()).contains("\"key\":\"t/metadata/v+1.metadata.json\"");
      Thread.sleep(1500);
      String dlq = client.getQueueUrl(b -> b.queueName("events-dlq")).queueUrl();
      // a second receive moves it past maxReceiveCount 1
      client.receiveMessage(
          ReceiveMessageRequest.builder().queueUrl(url).waitTimeSeconds(2).build());
      assertThat(
              client
                  .receiveMessage(
                      ReceiveMessageRequest.builder().queueUrl(dlq).waitTimeSeconds(3).build())
                  .messages())
          .hasSize(1);
    }
  }
}
