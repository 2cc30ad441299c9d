package io.icerepl.localstack;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * Turns every n-th answer to chosen S3 operations into 503 SlowDown, as S3 throttles a busy prefix:
 * an SDK interceptor, so the request really reached the server and only the answer is lost (the
 * hardest case for idempotence).
 */
public final class S3FaultInjector implements ExecutionInterceptor {
  private static final ExecutionAttribute<Boolean> INJECTED =
      new ExecutionAttribute<>("icerepl-injected");
  private static final byte[] SLOW_DOWN =
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
              + "<Message>Please reduce your request rate.</Message></Error>")
          .getBytes(StandardCharsets.UTF_8);

  private final int every;
  private final Set<String> operations;
  private final AtomicLong seen = new AtomicLong();
  private final AtomicLong injected = new AtomicLong();

  /**
   * @param every inject on every {@code every}-th matching answer (2: half of them)
   * @param operations SDK operation names, e.g. "GetObject", "PutObject", "HeadObject"
   */
  public S3FaultInjector(int every, Set<String> operations) {
    if (every < 2) {
      throw new IllegalArgumentException("every must be at least 2, got " + every);
    }
    this.every = every;
    this.operations = Set.copyOf(operations);
  }

  /** How many answers were replaced by 503 so far. */
  public long injected() {
    return injected.get();
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (java.io.IOException e) {
      // the connection is discarded either way
    }
  }

  @Override
  public SdkHttpResponse modifyHttpResponse(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    if (!operations.contains(operation) || seen.incrementAndGet() % every != 0) {
      return context.httpResponse();
    }
    injected.incrementAndGet();
    attributes.putAttribute(INJECTED, true);
    return context.httpResponse().toBuilder()
        .statusCode(503)
        .statusText("Slow Down")
        .removeHeader("Content-Length")
        .build();
  }

  @Override
  public Optional<InputStream> modifyHttpResponseContent(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    if (Boolean.TRUE.equals(attributes.getAttribute(INJECTED))) {
      // The server's real answer is dropped: close it, or its pooled connection is never released.
      context.responseBody().ifPresent(S3FaultInjector::closeQuietly);
      return Optional.of(new ByteArrayInputStream(SLOW_DOWN));
    }
    return context.responseBody();
  }
}
