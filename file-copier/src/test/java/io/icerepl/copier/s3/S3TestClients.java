package io.icerepl.copier.s3;

import io.icerepl.localstack.EmbeddedS3;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Clients on an embedded S3 that record each request's operation and can answer 503 SlowDown in
 * place of the server's answer, the way S3 throttles.
 */
final class S3TestClients implements ExecutionInterceptor {
  private static final ExecutionAttribute<Boolean> THROTTLED =
      new ExecutionAttribute<>("throttled");
  private static final byte[] SLOW_DOWN =
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error>"
              + "<Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
          .getBytes(StandardCharsets.UTF_8);

  private final List<String> operations = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> throttles = new ConcurrentHashMap<>();
  private final java.util.Set<String> forbidMissing = ConcurrentHashMap.newKeySet();
  private final Map<String, Runnable> beforeNext = new ConcurrentHashMap<>();
  private static final ExecutionAttribute<Boolean> FORBIDDEN =
      new ExecutionAttribute<>("forbidden");
  private static final byte[] ACCESS_DENIED =
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error>"
              + "<Code>AccessDenied</Code><Message>Access Denied</Message></Error>")
          .getBytes(StandardCharsets.UTF_8);
  final S3Client client;
  final S3AsyncClient asyncClient;

  S3TestClients(EmbeddedS3 s3, long multipartCopyThresholdBytes) {
    var credentials =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY));
    client =
        S3Client.builder()
            .endpointOverride(s3.endpoint())
            .region(EmbeddedS3.REGION)
            .credentialsProvider(credentials)
            .forcePathStyle(true)
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .addExecutionInterceptor(this)
                        .apiCallTimeout(Duration.ofSeconds(30)))
            .build();
    asyncClient =
        S3AsyncClient.builder()
            .endpointOverride(s3.endpoint())
            .region(EmbeddedS3.REGION)
            .credentialsProvider(credentials)
            .forcePathStyle(true)
            .overrideConfiguration(
                c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()).addExecutionInterceptor(this))
            .multipartEnabled(true)
            .multipartConfiguration(
                m ->
                    m.thresholdInBytes(multipartCopyThresholdBytes)
                        .minimumPartSizeInBytes(S3StoreSettings.MIN_PART_BYTES))
            .build();
  }

  /** The next {@code times} requests of {@code operation} (e.g. "PutObject") get 503 SlowDown. */
  void throttle(String operation, int times) {
    throttles.put(operation, new AtomicInteger(times));
  }

  /**
   * Answers 403 instead of 404 to {@code operation}, as S3 does for a missing key when the caller
   * may list the bucket only under a prefix.
   */
  void forbidMissing(String operation) {
    forbidMissing.add(operation);
  }

  /**
   * Runs {@code action} just before the next request of {@code operation} is sent, once: another
   * process acting between two requests of the code under test.
   */
  void beforeNext(String operation, Runnable action) {
    beforeNext.put(operation, action);
  }

  /** Operations sent so far, in order. */
  List<String> operations() {
    return List.copyOf(operations);
  }

  /** Forgets the operations sent and the throttling still pending. */
  void reset() {
    operations.clear();
    throttles.clear();
    forbidMissing.clear();
    beforeNext.clear();
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    operations.add(operation);
    Runnable action = beforeNext.remove(operation);
    if (action != null) {
      action.run();
    }
  }

  @Override
  public SdkHttpResponse modifyHttpResponse(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    if (context.httpResponse().statusCode() == 404 && forbidMissing.contains(operation)) {
      attributes.putAttribute(FORBIDDEN, true);
      return context.httpResponse().toBuilder()
          .statusCode(403)
          .statusText("Forbidden")
          .removeHeader("Content-Length")
          .build();
    }
    AtomicInteger left = throttles.get(operation);
    if (left == null || left.getAndDecrement() <= 0) {
      return context.httpResponse();
    }
    attributes.putAttribute(THROTTLED, true);
    return context.httpResponse().toBuilder()
        .statusCode(503)
        .statusText("Slow Down")
        .removeHeader("Content-Length")
        .build();
  }

  @Override
  public Optional<InputStream> modifyHttpResponseContent(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    if (Boolean.TRUE.equals(attributes.getAttribute(THROTTLED))) {
      return Optional.of(new ByteArrayInputStream(SLOW_DOWN));
    }
    if (Boolean.TRUE.equals(attributes.getAttribute(FORBIDDEN))) {
      return Optional.of(new ByteArrayInputStream(ACCESS_DENIED));
    }
    return context.responseBody();
  }

  void close() {
    client.close();
    asyncClient.close();
  }
}
