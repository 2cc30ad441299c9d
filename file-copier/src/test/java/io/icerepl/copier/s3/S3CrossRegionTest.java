package io.icerepl.copier.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.localstack.EmbeddedS3;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * The clients {@link S3ObjectStore#create} builds, on both sides, follow S3's 301 to a bucket's own
 * region. The embedded S3 is made to answer as AWS does for a bucket of another region: a request
 * signed for any region but the bucket's gets 301 PermanentRedirect with {@code
 * x-amz-bucket-region}. Without cross-region access the first such answer fails the call.
 */
class S3CrossRegionTest {
  private static final String SOURCE_BUCKET = "source-in-us-west-2";
  private static final String TARGET_BUCKET = "replica-in-eu-west-1";
  private static final Map<String, String> BUCKET_REGIONS =
      Map.of(SOURCE_BUCKET, "us-west-2", TARGET_BUCKET, "eu-west-1");
  private static EmbeddedS3 s3;

  private final RegionRedirects redirects = new RegionRedirects();

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    s3.createBucket(SOURCE_BUCKET);
    s3.createBucket(TARGET_BUCKET);
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  private S3ObjectStore store(String region) {
    S3Endpoint endpoint =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            region,
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
    return S3ObjectStore.create(
        endpoint,
        S3StoreSettings.defaults("cross-region-test"),
        S3Resilience.defaults(),
        List.of(redirects));
  }

  @Test
  void theTargetSideClientReadsABucketOfTheSourceRegion() throws IOException {
    String path = "s3://" + SOURCE_BUCKET + "/warehouse/t/data/a.parquet";
    try (S3ObjectStore source = store("us-west-2");
        S3ObjectStore target = store("eu-west-1")) {
      source.write(path, out -> out.write(bytes("eleven bytes")));
      assertThat(redirects.sent()).isZero();

      assertThat(target.length(path)).hasValue(12);
      try (InputStream in = target.open(path)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("eleven bytes");
      }
      assertThat(redirects.sent()).isPositive();
    }
  }

  @Test
  void theSourceSideClientReadsABucketOfTheTargetRegion() throws IOException {
    String path = "s3://" + TARGET_BUCKET + "/warehouse/t/metadata/v1.metadata.json";
    try (S3ObjectStore source = store("us-west-2");
        S3ObjectStore target = store("eu-west-1")) {
      target.write(path, out -> out.write(bytes("{}")));
      assertThat(redirects.sent()).isZero();

      assertThat(source.length(path)).hasValue(2);
      assertThat(redirects.sent()).isPositive();
    }
  }

  /**
   * CopyObject goes to the target bucket's region and names the source bucket in its header: with
   * the recorded length known, no request of the target's client touches the source bucket.
   */
  @Test
  void aServerSideCopyFromABucketOfAnotherRegionIsOneCopyObject() throws IOException {
    String from = "s3://" + SOURCE_BUCKET + "/warehouse/t/data/b.parquet";
    String to = "s3://" + TARGET_BUCKET + "/warehouse/t/data/b.parquet";
    try (S3ObjectStore source = store("us-west-2");
        S3ObjectStore target = store("eu-west-1")) {
      source.write(from, out -> out.write(bytes("copied inside S3")));
      assertThat(target.canCopyServerSideFrom(source)).isTrue();

      int before = redirects.operations().size();
      target.copyFrom(source, from, to, 16);

      assertThat(redirects.operations().subList(before, redirects.operations().size()))
          .containsExactly("CopyObject");
      assertThat(redirects.sent()).isZero();
      try (InputStream in = target.open(to)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
            .isEqualTo("copied inside S3");
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Answers 301 PermanentRedirect, with the bucket's region in {@code x-amz-bucket-region}, to a
   * request on a bucket of {@link #BUCKET_REGIONS} signed for another region.
   */
  static final class RegionRedirects implements ExecutionInterceptor {
    private static final Pattern SCOPE = Pattern.compile("Credential=[^/]+/\\d{8}/([^/]+)/s3/");
    private static final ExecutionAttribute<String> REDIRECT_TO =
        new ExecutionAttribute<>("redirect-to");
    private final List<String> redirected = new CopyOnWriteArrayList<>();
    private final List<String> operations = new CopyOnWriteArrayList<>();

    int sent() {
      return redirected.size();
    }

    List<String> operations() {
      return List.copyOf(operations);
    }

    @Override
    public SdkHttpResponse modifyHttpResponse(
        Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
      String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
      String bucket = bucketOf(context.httpRequest().getUri());
      operations.add(operation.equals("PutObject") ? operation + ":" + bucket : operation);
      String region = BUCKET_REGIONS.get(bucket);
      Optional<String> signed =
          context
              .httpRequest()
              .firstMatchingHeader("Authorization")
              .map(SCOPE::matcher)
              .filter(Matcher::find)
              .map(m -> m.group(1));
      if (region == null || signed.isEmpty() || signed.get().equals(region)) {
        return context.httpResponse();
      }
      redirected.add(operation + " " + bucket + " signed for " + signed.get());
      attributes.putAttribute(REDIRECT_TO, region);
      return context.httpResponse().toBuilder()
          .statusCode(301)
          .statusText("Moved Permanently")
          .removeHeader("Content-Length")
          .removeHeader("ETag")
          .putHeader("x-amz-bucket-region", region)
          .build();
    }

    @Override
    public Optional<InputStream> modifyHttpResponseContent(
        Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
      String region = attributes.getAttribute(REDIRECT_TO);
      if (region == null) {
        return context.responseBody();
      }
      return Optional.of(
          new ByteArrayInputStream(
              bytes(
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error>"
                      + "<Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed "
                      + "using the specified endpoint.</Message></Error>")));
    }

    /** Path-style: the first path segment. */
    private static String bucketOf(URI uri) {
      String path = uri.getRawPath();
      int end = path.indexOf('/', 1);
      return end < 0 ? path.substring(1) : path.substring(1, end);
    }
  }
}
