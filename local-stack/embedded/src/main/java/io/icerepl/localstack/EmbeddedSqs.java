package io.icerepl.localstack;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorSystem;
import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.CreateQueueRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * An SQS endpoint on loopback (ElasticMQ), for tests and for running the service without an AWS
 * account: standard queues, visibility timeouts, long polling and dead-letter redrive.
 */
public final class EmbeddedSqs implements AutoCloseable {
  /**
   * The actor system is this class's own, closed by {@link #close}: left to itself, Pekko adds a
   * JVM shutdown hook on first use, which is during shutdown when the server is closed by one, and
   * warns "Could not addJvmShutdownHook".
   */
  private static final String NO_SHUTDOWN_HOOKS =
      "pekko.jvm-shutdown-hooks = off\n"
          + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n";

  private final ActorSystem system;
  private final SQSRestServer server;
  private final int port;

  private EmbeddedSqs(ActorSystem system, SQSRestServer server, int port) {
    this.system = system;
    this.server = server;
    this.port = port;
  }

  /** Starts on a free loopback port. */
  public static EmbeddedSqs start() {
    return LoopbackPort.start("the embedded SQS", EmbeddedSqs::start);
  }

  public static EmbeddedSqs start(int port) {
    // The server address must carry the real port, or queue URLs name the wrong one.
    ActorSystem system =
        ActorSystem.create(
            "embedded-sqs",
            ConfigFactory.parseString(NO_SHUTDOWN_HOOKS).withFallback(ConfigFactory.load()));
    try {
      SQSRestServer server =
          SQSRestServerBuilder.withActorSystem(system)
              .withInterface("127.0.0.1")
              .withPort(port)
              .withServerAddress(new NodeAddress("http", "127.0.0.1", port, ""))
              .start();
      server.waitUntilStarted();
      return new EmbeddedSqs(system, server, port);
    } catch (RuntimeException e) {
      // a port taken meanwhile: the caller may try another, without this system's threads
      system.terminate();
      throw e;
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public SqsClient client() {
    return SqsClient.builder()
        .endpointOverride(endpoint())
        .region(EmbeddedS3.REGION)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY)))
        .build();
  }

  /**
   * Creates a queue whose messages go to a dead-letter queue {@code <name>-dlq} after {@code
   * maxReceives} receives, and returns the queue's URL.
   */
  public String createQueueWithDeadLetterQueue(
      String name, int maxReceives, int visibilityTimeoutSeconds) {
    try (SqsClient sqs = client()) {
      String dlqUrl =
          sqs.createQueue(CreateQueueRequest.builder().queueName(name + "-dlq").build()).queueUrl();
      String dlqArn =
          sqs.getQueueAttributes(
                  GetQueueAttributesRequest.builder()
                      .queueUrl(dlqUrl)
                      .attributeNames(QueueAttributeName.QUEUE_ARN)
                      .build())
              .attributes()
              .get(QueueAttributeName.QUEUE_ARN);
      String redrive =
          "{\"deadLetterTargetArn\":\""
              + dlqArn
              + "\",\"maxReceiveCount\":\""
              + maxReceives
              + "\"}";
      return sqs.createQueue(
              CreateQueueRequest.builder()
                  .queueName(name)
                  .attributes(
                      Map.of(
                          QueueAttributeName.REDRIVE_POLICY,
                          redrive,
                          QueueAttributeName.VISIBILITY_TIMEOUT,
                          Integer.toString(visibilityTimeoutSeconds)))
                  .build())
          .queueUrl();
    }
  }

  @Override
  public void close() {
    server.stopAndWait();
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Cannot stop the embedded SQS: " + e.getMessage(), e);
    }
  }
}
