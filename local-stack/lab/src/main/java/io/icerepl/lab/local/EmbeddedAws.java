package io.icerepl.lab.local;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import java.util.ArrayList;
import java.util.List;

/**
 * The embedded S3 and SQS the {@code local} profile runs against: started before Spring, so the
 * service's clients are configured with their endpoints like any other. Buckets {@code source} and
 * {@code replica} and the queue (with its dead-letter queue) are created here.
 */
public final class EmbeddedAws implements AutoCloseable {
  public static final String SOURCE_BUCKET = "source";
  public static final String TARGET_BUCKET = "replica";
  public static final String QUEUE = "iceberg-replicator-events";

  private final EmbeddedS3 s3;
  private final EmbeddedSqs sqs;
  private final String queueUrl;

  private EmbeddedAws(EmbeddedS3 s3, EmbeddedSqs sqs, String queueUrl) {
    this.s3 = s3;
    this.sqs = sqs;
    this.queueUrl = queueUrl;
  }

  public static EmbeddedAws start() {
    EmbeddedS3 s3 = EmbeddedS3.start();
    EmbeddedSqs sqs = EmbeddedSqs.start();
    s3.createBucket(SOURCE_BUCKET);
    s3.createBucket(TARGET_BUCKET);
    String queueUrl = sqs.createQueueWithDeadLetterQueue(QUEUE, 5, 30);
    return new EmbeddedAws(s3, sqs, queueUrl);
  }

  public EmbeddedS3 s3() {
    return s3;
  }

  public EmbeddedSqs sqs() {
    return sqs;
  }

  public String queueUrl() {
    return queueUrl;
  }

  /** Spring arguments pointing the service at these endpoints. */
  public List<String> springArguments() {
    return endpointArguments(s3.endpoint().toString(), sqs.endpoint().toString(), QUEUE);
  }

  /** Spring arguments pointing the service at an embedded S3 (both sides) and SQS queue. */
  public static List<String> endpointArguments(
      String s3Endpoint, String sqsEndpoint, String queue) {
    List<String> args = new ArrayList<>();
    for (String side : List.of("source", "target")) {
      args.add("--replicator.s3." + side + ".endpoint=" + s3Endpoint);
      args.add("--replicator.s3." + side + ".access-key-id=" + EmbeddedS3.ACCESS_KEY);
      args.add("--replicator.s3." + side + ".secret-access-key=" + EmbeddedS3.SECRET_KEY);
      args.add("--replicator.s3." + side + ".path-style=true");
    }
    args.add("--replicator.sqs.enabled=true");
    args.add("--replicator.sqs.queue=" + queue);
    args.add("--spring.cloud.aws.sqs.endpoint=" + sqsEndpoint);
    args.add("--spring.cloud.aws.region.static=" + EmbeddedS3.REGION.id());
    args.add("--spring.cloud.aws.credentials.access-key=" + EmbeddedS3.ACCESS_KEY);
    args.add("--spring.cloud.aws.credentials.secret-key=" + EmbeddedS3.SECRET_KEY);
    return args;
  }

  @Override
  public void close() {
    sqs.close();
    s3.close();
  }
}
