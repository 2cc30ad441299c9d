package io.icerepl.copier.batch;

import io.icerepl.copier.s3.S3Location;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3control.S3ControlClient;
import software.amazon.awssdk.services.s3control.endpoints.S3ControlEndpointProvider;
import software.amazon.awssdk.services.s3control.model.CreateJobRequest;
import software.amazon.awssdk.services.s3control.model.JobDescriptor;
import software.amazon.awssdk.services.s3control.model.JobFailure;
import software.amazon.awssdk.services.s3control.model.JobListDescriptor;
import software.amazon.awssdk.services.s3control.model.JobManifestFieldName;
import software.amazon.awssdk.services.s3control.model.JobManifestFormat;
import software.amazon.awssdk.services.s3control.model.JobProgressSummary;
import software.amazon.awssdk.services.s3control.model.JobReportFormat;
import software.amazon.awssdk.services.s3control.model.JobReportScope;
import software.amazon.awssdk.services.s3control.model.ListJobsResponse;
import software.amazon.awssdk.services.s3control.model.S3MetadataDirective;

/**
 * The S3 Control calls of S3 Batch Operations copy jobs of one account: create one, find one by its
 * description, and read where one stands.
 */
public final class BatchJobs implements AutoCloseable {
  private final S3ControlClient client;
  private final String accountId;

  /**
   * @param client a client of the region the jobs run in: the region of the manifest's bucket
   * @param accountId the account the jobs belong to
   */
  public BatchJobs(S3ControlClient client, String accountId) {
    this.client = client;
    this.accountId = accountId;
  }

  /**
   * A client of S3 Control in {@code region}, with the default credentials chain.
   *
   * @param endpoint another S3 Control endpoint than AWS's (see {@link #endpointAt})
   */
  public static S3ControlClient client(String region, Optional<URI> endpoint) {
    var builder =
        S3ControlClient.builder()
            .region(Region.of(region))
            .credentialsProvider(DefaultCredentialsProvider.builder().build());
    endpoint.ifPresent(uri -> builder.endpointProvider(endpointAt(uri)));
    return builder.build();
  }

  /**
   * Every request at {@code uri}, with what AWS's rules add besides the host (signing, headers).
   * The rules put the account id before the host name, even of an endpoint override, and a test
   * server or a private endpoint has no name of that form.
   */
  public static S3ControlEndpointProvider endpointAt(URI uri) {
    S3ControlEndpointProvider rules = S3ControlEndpointProvider.defaultProvider();
    return params ->
        rules
            .resolveEndpoint(params)
            .thenApply(
                resolved ->
                    resolved.toBuilder()
                        .url(
                            URI.create(
                                uri.getScheme()
                                    + "://"
                                    + uri.getRawAuthority()
                                    + resolved.url().getRawPath()))
                        .build());
  }

  /**
   * Creates the job; AWS answers a second request with the same client token with the same job.
   *
   * @return the job's id
   */
  public String create(CopyJob job) {
    String partition = partitionOf(job.roleArn());
    S3Location manifest = S3Location.parse(job.manifestPath());
    S3Location report = S3Location.parse(job.reportPath());
    CreateJobRequest request =
        CreateJobRequest.builder()
            .accountId(accountId)
            .clientRequestToken(job.token())
            .description(job.description())
            .confirmationRequired(false)
            .priority(job.priority())
            .roleArn(job.roleArn())
            .operation(
                o ->
                    o.s3PutObjectCopy(
                        c -> {
                          c.targetResource(bucketArn(partition, job.targetBucket()))
                              .metadataDirective(S3MetadataDirective.COPY);
                          if (!job.targetKeyPrefix().isEmpty()) {
                            c.targetKeyPrefix(job.targetKeyPrefix());
                          }
                        }))
            .manifest(
                m ->
                    m.spec(
                            s ->
                                s.format(JobManifestFormat.S3_BATCH_OPERATIONS_CSV_20180820)
                                    .fields(JobManifestFieldName.BUCKET, JobManifestFieldName.KEY))
                        .location(
                            l ->
                                l.objectArn(
                                        bucketArn(partition, manifest.bucket())
                                            + "/"
                                            + manifest.key())
                                    .eTag(job.manifestETag())))
            .report(
                r ->
                    r.enabled(true)
                        .bucket(bucketArn(partition, report.bucket()))
                        .prefix(report.key())
                        .format(JobReportFormat.REPORT_CSV_20180820)
                        .reportScope(JobReportScope.ALL_TASKS))
            .build();
    return client.createJob(request).jobId();
  }

  /** The newest job whose description is {@code description}, among every job S3 still lists. */
  public Optional<String> findByDescription(String description) {
    String next = null;
    do {
      String token = next;
      ListJobsResponse page =
          client.listJobs(b -> b.accountId(accountId).nextToken(token).maxResults(1000));
      for (JobListDescriptor job : page.jobs()) {
        if (description.equals(job.description())) {
          return Optional.of(job.jobId());
        }
      }
      next = page.nextToken();
    } while (next != null && !next.isEmpty());
    return Optional.empty();
  }

  public JobProgress describe(String jobId) {
    JobDescriptor job = client.describeJob(b -> b.accountId(accountId).jobId(jobId)).job();
    JobProgressSummary progress = job.progressSummary();
    List<String> reasons = job.failureReasons().stream().map(f -> reason(f)).toList();
    return new JobProgress(
        jobId,
        job.statusAsString(),
        progress == null ? 0 : orZero(progress.numberOfTasksSucceeded()),
        progress == null ? 0 : orZero(progress.numberOfTasksFailed()),
        progress == null ? 0 : orZero(progress.totalNumberOfTasks()),
        reasons);
  }

  /** Closes the client. */
  @Override
  public void close() {
    client.close();
  }

  /** The partition of an ARN ({@code aws}, {@code aws-cn}, {@code aws-us-gov}). */
  private static String partitionOf(String arn) {
    String[] parts = arn.split(":", 3);
    if (parts.length < 3 || !parts[0].equals("arn") || parts[1].isEmpty()) {
      throw new IllegalArgumentException("Cannot use " + arn + " as an ARN: no partition");
    }
    return parts[1];
  }

  private static String bucketArn(String partition, String bucket) {
    return "arn:" + partition + ":s3:::" + bucket;
  }

  private static String reason(JobFailure failure) {
    return failure.failureCode() + ": " + failure.failureReason();
  }

  private static long orZero(Long value) {
    return value == null ? 0 : value;
  }
}
