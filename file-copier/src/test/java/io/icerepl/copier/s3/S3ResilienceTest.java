package io.icerepl.copier.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.icerepl.localstack.EmbeddedS3;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3ResilienceTest {
  private static final String BUCKET = "resilience-test";
  private static EmbeddedS3 s3;
  private static S3TestClients clients;

  private S3Resilience resilience;
  private S3ObjectStore store;

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    s3.createBucket(BUCKET);
    clients = new S3TestClients(s3, 64L * 1024 * 1024);
  }

  @AfterAll
  static void stopS3() {
    clients.close();
    s3.close();
  }

  @BeforeEach
  void newStore() {
    clients.reset();
    resilience =
        new S3Resilience(
            S3ResilienceSettings.defaults()
                .withRetry(4, Duration.ofMillis(5), Duration.ofMillis(50)));
    store =
        new S3ObjectStore(
            clients.client,
            clients.asyncClient,
            S3StoreSettings.defaults("test-owner"),
            resilience);
  }

  private static String uri(String key) {
    return "s3://" + BUCKET + "/" + key;
  }

  @Test
  void throttledRequestsAreRetriedUntilTheySucceed() throws IOException {
    clients.throttle("PutObject", 2);
    store.write(uri("a"), out -> out.write(bytes("payload")));
    clients.throttle("GetObject", 3);
    try (InputStream in = store.open(uri("a"))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("payload");
    }
    assertThat(resilience.retries()).isEqualTo(5);
    assertThat(
            resilience
                .retryRegistry()
                .retry(BUCKET)
                .getMetrics()
                .getNumberOfSuccessfulCallsWithRetryAttempt())
        .isEqualTo(2);
  }

  @Test
  void aMissingKeyAnsweredWith403IsStillMissingButAnExistingOneIsRead() throws IOException {
    store.write(uri("present"), out -> out.write(bytes("here")));
    clients.forbidMissing("HeadObject");
    clients.forbidMissing("GetObject");

    assertThat(store.length(uri("absent"))).isEmpty();
    assertThatThrownBy(() -> store.open(uri("absent")))
        .isInstanceOf(java.nio.file.NoSuchFileException.class);
    assertThat(store.length(uri("present"))).hasValue(4);
    assertThat(resilience.retries()).isZero();
  }

  @Test
  void throttlingBeyondTheAttemptsFailsNamingThePath() {
    clients.throttle("HeadObject", 10);
    assertThatThrownBy(() -> store.length(uri("a")))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot get length of " + uri("a") + ": S3 answered 503 SlowDown");
    assertThat(resilience.retries()).isEqualTo(3);
  }

  @Test
  void aCreateWhoseAnswerWasLostIsStillReportedAsCreated() throws IOException {
    // The first attempt stores the object but its answer is replaced by 503; the retry gets 412.
    clients.throttle("PutObject", 1);
    assertThat(store.createIfAbsent(uri("v1.metadata.json"), bytes("mine"))).isTrue();
    assertThat(resilience.retries()).isEqualTo(1);
    assertThat(store.createIfAbsent(uri("v1.metadata.json"), bytes("theirs"))).isFalse();
  }

  @Test
  void missingObjectsAndFailedConditionsAreNotRetried() throws IOException {
    assertThat(store.length(uri("missing"))).isEmpty();
    assertThatThrownBy(() -> store.open(uri("missing"))).isInstanceOf(IOException.class);
    store.createIfAbsent(uri("once"), bytes("1"));
    assertThat(store.createIfAbsent(uri("once"), bytes("2"))).isFalse();
    assertThat(resilience.retries()).isZero();
  }

  @Test
  void onlyThrottlingServerAndConnectionErrorsAreRetryable() {
    assertThat(S3Resilience.isRetryable(s3Error(503, "SlowDown"))).isTrue();
    assertThat(S3Resilience.isRetryable(s3Error(429, "TooManyRequests"))).isTrue();
    assertThat(S3Resilience.isRetryable(s3Error(500, "InternalError"))).isTrue();
    assertThat(S3Resilience.isRetryable(s3Error(404, "NoSuchKey"))).isFalse();
    assertThat(S3Resilience.isRetryable(s3Error(412, "PreconditionFailed"))).isFalse();
    assertThat(S3Resilience.isRetryable(s3Error(403, "AccessDenied"))).isFalse();
    assertThat(
            S3Resilience.isRetryable(
                SdkClientException.create("reset", new SocketException("Connection reset"))))
        .isTrue();
    assertThat(S3Resilience.isRetryable(SdkClientException.create("bad request built"))).isFalse();
    // nothing listens there: a setting to correct, failed at once
    assertThat(
            S3Resilience.isRetryable(
                SdkClientException.create(
                    "Unable to execute HTTP request",
                    new java.net.ConnectException("Connection refused"))))
        .isFalse();
    assertThat(
            S3Resilience.isRetryable(
                SdkClientException.create(
                    "Unable to execute HTTP request",
                    new java.io.IOException(new java.net.UnknownHostException("no.such.host")))))
        .isFalse();
  }

  @Test
  void missingCredentialsAreSaidInOneLineWithoutTheSdksChain() {
    IOException error =
        S3Calls.translate(
            "read",
            "s3://b/k",
            SdkClientException.create(
                "Unable to load credentials from any of the providers in the chain"
                    + " AwsCredentialsProviderChain(credentialsProviders=[SystemProperties...]) :"
                    + " [SystemPropertyCredentialsProvider(): Unable to load credentials...]"));
    assertThat(error)
        .hasMessage(
            "Cannot read s3://b/k: no AWS credentials found (environment variables, profile, web"
                + " identity, container or instance role)");
  }

  @Test
  void aBucketThatKeepsFailingOpensItsBreaker() {
    S3Resilience fragile =
        new S3Resilience(
            S3ResilienceSettings.defaults()
                .withRetry(1, Duration.ofMillis(1), Duration.ofMillis(1))
                .withCircuitBreaker(50f, 4, Duration.ofMinutes(1)));
    S3ObjectStore failing =
        new S3ObjectStore(
            clients.client, clients.asyncClient, S3StoreSettings.defaults("test-owner"), fragile);
    clients.throttle("HeadObject", 4);
    for (int i = 0; i < 4; i++) {
      assertThatThrownBy(() -> failing.length(uri("a"))).hasMessageContaining("503");
    }
    assertThatThrownBy(() -> failing.length(uri("a")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Cannot call S3 bucket " + BUCKET + ": too many recent failures");
    assertThat(clients.operations()).hasSize(4);
  }

  @Test
  void aRateLimiterPerPrefixSpacesRequests() throws IOException {
    S3Resilience limited =
        new S3Resilience(S3ResilienceSettings.defaults().withPermitsPerSecond(2));
    S3ObjectStore slow =
        new S3ObjectStore(
            clients.client, clients.asyncClient, S3StoreSettings.defaults("test-owner"), limited);
    long start = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      slow.length(uri("t1/a"));
    }
    // two permits a second: five requests take three periods, so at least two boundaries pass
    // and the whole middle period; a lower bound, which a slow machine only exceeds further
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(limited.rateLimiterRegistry().getAllRateLimiters())
        .extracting(RateLimiter::getName)
        .containsExactly(BUCKET + "/t1");
  }

  private static S3Exception s3Error(int status, String code) {
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build())
            .build();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
