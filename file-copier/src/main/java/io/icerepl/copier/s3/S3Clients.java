package io.icerepl.copier.s3;

import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The sync and async clients a store of its own makes for an endpoint: SDK retries off
 * (S3Resilience is the one retry layer), cross-region access on, and multipart copies on the async
 * client.
 */
record S3Clients(S3Client sync, S3AsyncClient async) {

  static S3Clients create(
      S3Endpoint endpoint, S3StoreSettings settings, List<ExecutionInterceptor> interceptors) {
    AwsCredentialsProvider credentials =
        endpoint.accessKeyId().isPresent()
            ? StaticCredentialsProvider.create(
                AwsBasicCredentials.create(
                    endpoint.accessKeyId().get(), endpoint.secretAccessKey().get()))
            : DefaultCredentialsProvider.builder().build();
    var sync =
        S3Client.builder()
            .region(Region.of(endpoint.region()))
            .credentialsProvider(credentials)
            .forcePathStyle(endpoint.pathStyle())
            // The other side's bucket is often in another region: a CopyObject's HEAD of its
            // source, or any call on a bucket of another region, gets a 301 that this follows to
            // that region.
            .crossRegionAccessEnabled(true)
            // S3Resilience is the one retry layer; SDK retries underneath would multiply attempts.
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .executionInterceptors(interceptors));
    var async =
        S3AsyncClient.builder()
            .region(Region.of(endpoint.region()))
            .credentialsProvider(credentials)
            .forcePathStyle(endpoint.pathStyle())
            .crossRegionAccessEnabled(true)
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .executionInterceptors(interceptors))
            .multipartEnabled(true)
            .multipartConfiguration(
                m ->
                    m.thresholdInBytes(settings.multipartCopyThresholdBytes())
                        .minimumPartSizeInBytes(settings.partSizeBytes()));
    endpoint
        .endpointOverride()
        .ifPresent(
            uri -> {
              sync.endpointOverride(uri);
              async.endpointOverride(uri);
            });
    return new S3Clients(sync.build(), async.build());
  }
}
