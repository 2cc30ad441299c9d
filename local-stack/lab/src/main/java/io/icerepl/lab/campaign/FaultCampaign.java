package io.icerepl.lab.campaign;

import io.icerepl.app.service.ReplicatorApplication;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The fault campaign: for each rate, the service in-process with an SDK interceptor injecting S3
 * faults on both sides (source and target clients), every S3 event published twice and some late; a
 * writer makes its commits and the campaign measures the time until the replica holds the head,
 * then compares every snapshot. A 0 % baseline runs first.
 */
public final class FaultCampaign {
  private static final String SOURCE_BUCKET = CampaignService.SOURCE_BUCKET;
  private static final String TARGET_BUCKET = CampaignService.TARGET_BUCKET;
  private static final String QUEUE = CampaignService.QUEUE;

  private final List<Integer> rates;
  private final int commits;
  private final long seed;
  private final Duration convergeTimeout;
  private final Duration settleTime;
  private final PrintWriter out;

  /** With the service's default settle time, as users run it. */
  public FaultCampaign(
      List<Integer> rates, int commits, long seed, Duration convergeTimeout, PrintWriter out) {
    this(rates, commits, seed, convergeTimeout, Duration.ofSeconds(5), out);
  }

  /**
   * @param settleTime the service's {@code replicator.settle-time}: the campaign's writer is the
   *     table's only one, so a short one loses nothing and only shortens each convergence
   */
  public FaultCampaign(
      List<Integer> rates,
      int commits,
      long seed,
      Duration convergeTimeout,
      Duration settleTime,
      PrintWriter out) {
    this.settleTime = settleTime;
    this.rates = new ArrayList<>();
    if (!rates.contains(0)) {
      this.rates.add(0);
    }
    this.rates.addAll(rates);
    this.commits = commits;
    this.seed = seed;
    this.convergeTimeout = convergeTimeout;
    this.out = out;
  }

  private record Result(
      int rate,
      int replicated,
      int committed,
      int duplicates,
      long events,
      FaultInterceptor faults,
      long retries,
      boolean converged,
      double convergeSeconds,
      double totalSeconds,
      long compared,
      long missing,
      long mismatched,
      List<String> problems,
      List<String> refProblems,
      double writeSeconds) {
    Verdict verdict() {
      return new Verdict()
          .check("faults injected at a non-zero rate", rate == 0 || faults.injectedTotal() > 0)
          .replicaChecks(
              converged,
              replicated,
              committed,
              duplicates,
              compared,
              missing,
              mismatched,
              refProblems);
    }

    boolean ok() {
      return verdict().ok();
    }
  }

  /** Runs every rate, prints the figures and returns whether every check passed. */
  public boolean run() throws Exception {
    long started = System.nanoTime();
    out.printf("fault campaign: seed %d, %d commits per rate, rates %s %%%n", seed, commits, rates);
    out.flush();
    List<Result> results = new ArrayList<>();
    for (int rate : rates) {
      Result result = runRate(rate);
      results.add(result);
      out.printf(
          "  %3d %%: %s in %.1f s%n",
          rate, result.ok() ? "ok" : "FAILED " + result.verdict().failed(), result.totalSeconds());
      out.flush();
    }
    out.println();
    out.println(
        "| fault rate | commits replicated / committed | faults injected (503 / 500 / reset / slow) "
            + "| S3 requests | S3 retries | events sent | commits written in | converged after the last commit | total | snapshots compared / mismatches |");
    out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (Result r : results) {
      FaultInterceptor f = r.faults();
      out.printf(
          "| %d %% | %d / %d%s | %d (%d / %d / %d / %d) | %d | %d | %d | %.1f s | %s | %.1f s | %d / %d |%n",
          r.rate(),
          r.replicated(),
          r.committed(),
          r.duplicates() > 0 ? " (" + r.duplicates() + " twice)" : "",
          f.injectedTotal(),
          f.injected(FaultInterceptor.Kind.SLOW_DOWN_503),
          f.injected(FaultInterceptor.Kind.INTERNAL_ERROR_500),
          f.injected(FaultInterceptor.Kind.CONNECTION_RESET),
          f.injected(FaultInterceptor.Kind.SLOW_RESPONSE),
          f.requests(),
          r.retries(),
          r.events(),
          r.writeSeconds(),
          r.converged() ? String.format("%.1f s", r.convergeSeconds()) : "NO (timeout)",
          r.totalSeconds(),
          r.compared(),
          r.missing() + r.mismatched());
    }
    for (Result r : results) {
      r.problems().stream().limit(5).forEach(p -> out.println("rate " + r.rate() + " %: " + p));
    }
    boolean ok = results.stream().allMatch(Result::ok);
    out.printf("wall time %.1f s%n", (System.nanoTime() - started) / 1e9);
    out.println(ok ? "fault campaign: OK" : "fault campaign: FAILED");
    out.flush();
    return ok;
  }

  private Result runRate(int rate) throws Exception {
    long started = System.nanoTime();
    Random events = new Random(seed * 31 + rate);
    long[] sent = {0};
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        EmbeddedSqs sqs = EmbeddedSqs.start();
        SqsClient sqsClient = sqs.client()) {
      s3.createBucket(SOURCE_BUCKET);
      s3.createBucket(TARGET_BUCKET);
      String queueUrl = sqs.createQueueWithDeadLetterQueue(QUEUE, 5, 5);
      String region = EmbeddedS3.REGION.id();
      FaultInterceptor faults = new FaultInterceptor(rate, seed * 1000 + rate);
      ConfigurableApplicationContext service =
          startService(s3.endpoint().toString(), sqs.endpoint().toString(), faults, settleTime);
      try (CampaignSource source =
              new CampaignSource(
                  SOURCE_BUCKET,
                  s3.endpoint(),
                  region,
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY,
                  file -> {
                    // every event twice: one now, one now or late (SQS delivery delay 1-5 s)
                    String key = file.substring(("s3://" + SOURCE_BUCKET + "/").length());
                    String body = S3EventMessages.objectCreated(SOURCE_BUCKET, key, 0);
                    sqsClient.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body));
                    int delay;
                    synchronized (events) {
                      delay = events.nextInt(3) == 0 ? 1 + events.nextInt(5) : 0;
                    }
                    sqsClient.sendMessage(
                        b -> b.queueUrl(queueUrl).messageBody(body).delaySeconds(delay));
                    sent[0] += 2;
                  },
                  seed + rate);
          ReplicaReader reader =
              new ReplicaReader(
                  s3.endpoint(),
                  region,
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY,
                  TARGET_BUCKET,
                  "warehouse/" + CampaignSource.NAMESPACE + "/" + CampaignSource.TABLE)) {
        // the table exists and is replicated before the measured commits: a new table is backfilled
        // from its head, so from here on every source version must reach the replica
        source.commit();
        long setupDeadline = System.nanoTime() + convergeTimeout.toNanos();
        while (!reader.holdsHead(source.head())) {
          if (System.nanoTime() > setupDeadline) {
            throw new IllegalStateException(
                "The service did not replicate the new table at " + rate + " % faults");
          }
          CrashCampaign.sleep(100);
        }
        long firstCommit = System.nanoTime();
        for (int i = 0; i < commits; i++) {
          source.commit();
          CrashCampaign.sleep(100);
        }
        long lastCommit = System.nanoTime();
        boolean converged = false;
        long deadline = lastCommit + convergeTimeout.toNanos();
        while (System.nanoTime() < deadline) {
          if (reader.holdsHead(source.head())) {
            converged = true;
            break;
          }
          CrashCampaign.sleep(100);
        }
        double convergeSeconds = (System.nanoTime() - lastCommit) / 1e9;
        long retries = service.getBean(S3Resilience.class).retries();
        service.close();

        List<String> sourceNames = new ArrayList<>();
        for (String v : reader.versions().values()) {
          sourceNames.add(reader.sourceFileOf(v));
        }
        Set<String> distinct = new HashSet<>(sourceNames);
        Set<String> committedNames = new HashSet<>();
        source.metadataFiles().forEach(f -> committedNames.add(ReplicaReader.fileName(f)));
        Set<String> replicated = new HashSet<>(distinct);
        replicated.retainAll(committedNames);
        List<String> problems = new ArrayList<>();
        String current = reader.currentMetadataFile();
        Map<Long, List<String>> recorded = source.recordedRows();
        long[] compared =
            current == null
                ? new long[] {0, recorded.size(), 0}
                : reader.compare(current, recorded, problems);
        List<String> refProblems =
            current == null
                ? List.of("no replica")
                : reader.refProblems(current, source.refs(), source.currentSnapshotId());
        problems.addAll(refProblems);
        return new Result(
            rate,
            replicated.size(),
            source.commits(),
            sourceNames.size() - distinct.size(),
            sent[0],
            faults,
            retries,
            converged,
            convergeSeconds,
            (System.nanoTime() - started) / 1e9,
            compared[0],
            compared[1],
            compared[2],
            problems,
            refProblems,
            (lastCommit - firstCommit) / 1e9);
      } finally {
        if (service.isActive()) {
          service.close();
        }
      }
    }
  }

  private static ConfigurableApplicationContext startService(
      String s3Endpoint, String sqsEndpoint, FaultInterceptor faults, Duration settleTime) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--spring.main.banner-mode=off");
    args.add("--logging.level.root=ERROR");
    args.add("--logging.level.io.icerepl=ERROR");
    args.addAll(CampaignService.arguments(s3Endpoint, sqsEndpoint));
    args.add("--replicator.s3.retry.initial-backoff=PT0.05S");
    args.add("--replicator.s3.retry.max-backoff=PT2S");
    args.add("--replicator.reconciliation-interval=PT2S");
    args.add("--replicator.retry.initial-backoff=PT0.5S");
    args.add("--replicator.retry.max-backoff=PT2S");
    args.add("--replicator.settle-time=" + settleTime);
    SpringApplication application = new SpringApplication(ReplicatorApplication.class);
    // a singleton ExecutionInterceptor bean: the service puts it on both S3 clients
    application.addInitializers(
        context -> context.getBeanFactory().registerSingleton("campaignFaults", faults));
    return application.run(args.toArray(String[]::new));
  }
}
