package io.icerepl.lab.campaign;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * Injects S3 faults into a share of requests, after the request reached the server (only its answer
 * is lost or late, the hardest case for idempotence): 503 SlowDown, 500 InternalError, a connection
 * reset (an SdkClientException caused by a SocketException, as the HTTP client throws it), or a
 * slow answer (200–800 ms).
 */
final class FaultInterceptor implements ExecutionInterceptor {
  enum Kind {
    SLOW_DOWN_503,
    INTERNAL_ERROR_500,
    CONNECTION_RESET,
    SLOW_RESPONSE
  }

  private static final ExecutionAttribute<Kind> FAULT =
      new ExecutionAttribute<>("icerepl-campaign-fault");

  private final int percent;
  private final Random random;
  private final AtomicLong requests = new AtomicLong();
  private final Map<Kind, AtomicLong> injected = new EnumMap<>(Kind.class);

  FaultInterceptor(int percent, long seed) {
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("Cannot inject faults into " + percent + " % of requests");
    }
    this.percent = percent;
    this.random = new Random(seed);
    for (Kind kind : Kind.values()) {
      injected.put(kind, new AtomicLong());
    }
  }

  long requests() {
    return requests.get();
  }

  long injected(Kind kind) {
    return injected.get(kind).get();
  }

  long injectedTotal() {
    return injected.values().stream().mapToLong(AtomicLong::get).sum();
  }

  @Override
  public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
    requests.incrementAndGet();
    Kind kind;
    long slowMillis;
    synchronized (random) {
      if (random.nextInt(100 * 100) >= percent * 100) {
        return;
      }
      kind = Kind.values()[random.nextInt(Kind.values().length)];
      slowMillis = 200 + random.nextInt(601);
    }
    injected.get(kind).incrementAndGet();
    attributes.putAttribute(FAULT, kind);
    if (kind == Kind.SLOW_RESPONSE) {
      try {
        Thread.sleep(slowMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public SdkHttpResponse modifyHttpResponse(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    Kind kind = attributes.getAttribute(FAULT);
    if (kind == Kind.SLOW_DOWN_503) {
      return context.httpResponse().toBuilder()
          .statusCode(503)
          .statusText("Slow Down")
          .removeHeader("Content-Length")
          .build();
    }
    if (kind == Kind.INTERNAL_ERROR_500) {
      return context.httpResponse().toBuilder()
          .statusCode(500)
          .statusText("Internal Server Error")
          .removeHeader("Content-Length")
          .build();
    }
    return context.httpResponse();
  }

  @Override
  public Optional<InputStream> modifyHttpResponseContent(
      Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    Kind kind = attributes.getAttribute(FAULT);
    if (kind == null || kind == Kind.SLOW_RESPONSE) {
      return context.responseBody();
    }
    // the server's real answer is dropped: close it, or its pooled connection is never released
    context.responseBody().ifPresent(FaultInterceptor::closeQuietly);
    return switch (kind) {
      case SLOW_DOWN_503 -> Optional.of(error("SlowDown", "Please reduce your request rate."));
      case INTERNAL_ERROR_500 ->
          Optional.of(
              error("InternalError", "We encountered an internal error. Please try again."));
      default ->
          throw SdkClientException.builder()
              .message("Unable to execute HTTP request: Connection reset")
              .cause(new SocketException("Connection reset"))
              .build();
    };
  }

  private static InputStream error(String code, String message) {
    return new ByteArrayInputStream(
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                + code
                + "</Code><Message>"
                + message
                + "</Message></Error>")
            .getBytes(StandardCharsets.UTF_8));
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException e) {
      // the connection is discarded either way
    }
  }
}
