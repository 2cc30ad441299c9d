package io.icerepl.lab.campaign;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.LoopbackPort;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The pause campaign: several {@code serve} processes share one queue while a writer commits, and
 * one of them at a time is stopped (SIGSTOP) past the lease TTL, so another takes the table over,
 * then continued (SIGCONT). Some pauses are random; the others land at a chosen write point of the
 * replica (the state, the publish of a version) through the service's test-only pause hook ({@code
 * replicator.test.pause-at}), so the continued process attempts a write after it lost its lease.
 * Every such stale write must be refused by the store, every source commit replicated once and in
 * order, and no table shown diverged.
 */
public final class PauseCampaign {
  private static final String SOURCE_BUCKET = CampaignService.SOURCE_BUCKET;
  private static final String TARGET_BUCKET = CampaignService.TARGET_BUCKET;
  private static final String QUEUE = CampaignService.QUEUE;

  /** The write points a pause may be chosen at, as the service's hook names them. */
  static final List<String> POINTS = List.of("state", "publish", "hint");

  /** What a continued process logs when the store refused its write. */
  private static final List<String> REFUSALS = List.of("changes nothing more", "published it late");

  /** The services' API token, so the campaign reads each one's replication status. */
  private static final String API_TOKEN = "pause-campaign-token";

  private static final Pattern EPOCH = Pattern.compile("\"fencing-epoch\"\\s*:\\s*(\\d+)");

  /** Settings; see the {@code campaign pause} options. */
  public record Settings(
      int instances,
      int pauses,
      long seed,
      Path jar,
      Duration lockTtl,
      Duration commitInterval,
      Duration convergeTimeout,
      Path workDir,
      List<String> jvmOptions,
      Duration clockAhead) {
    /** Without a skewed clock. */
    public Settings(
        int instances,
        int pauses,
        long seed,
        Path jar,
        Duration lockTtl,
        Duration commitInterval,
        Duration convergeTimeout,
        Path workDir,
        List<String> jvmOptions) {
      this(
          instances,
          pauses,
          seed,
          jar,
          lockTtl,
          commitInterval,
          convergeTimeout,
          workDir,
          jvmOptions,
          Duration.ZERO);
    }
  }

  private final Settings settings;
  private final PrintWriter out;

  public PauseCampaign(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /** One service process, its log, its port and the file that arms its pause hook. */
  private record Instance(int index, Process process, Path log, Path arm, int port) {
    long pid() {
      return process.pid();
    }

    String logText() {
      try {
        return Files.readString(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "";
      }
    }
  }

  /** Runs the campaign, prints its figures and returns whether every check passed. */
  public boolean run() throws Exception {
    long started = System.nanoTime();
    Path work =
        settings.workDir() != null
            ? settings.workDir()
            : Files.createTempDirectory("icerepl-pause-");
    Files.createDirectories(work.resolve("s3"));
    Random random = new Random(settings.seed());
    out.printf(
        "pause campaign: seed %d, %d instances, %d pauses, lease TTL %s%s, work folder %s%n",
        settings.seed(),
        settings.instances(),
        settings.pauses(),
        settings.lockTtl(),
        skewed() ? ", instance 0's clock " + settings.clockAhead() + " ahead" : "",
        work);
    out.flush();
    List<Instance> instances = new ArrayList<>();
    try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), LoopbackPort.free());
        EmbeddedSqs sqs = EmbeddedSqs.start(LoopbackPort.free());
        SqsClient sqsClient = sqs.client();
        S3Client s3Client = s3.client()) {
      s3.createBucket(SOURCE_BUCKET);
      s3.createBucket(TARGET_BUCKET);
      String queueUrl = sqs.createQueueWithDeadLetterQueue(QUEUE, 5, 5);
      String region = EmbeddedS3.REGION.id();
      String tablePath = "warehouse/" + CampaignSource.NAMESPACE + "/" + CampaignSource.TABLE;
      String stateKey = tablePath + "/metadata/.replicator-state.json";
      String hintKey = tablePath + "/metadata/version-hint.text";
      try (CampaignSource source =
              new CampaignSource(
                  SOURCE_BUCKET,
                  s3.endpoint(),
                  region,
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY,
                  file -> CrashCampaign.publish(sqsClient, queueUrl, file),
                  settings.seed());
          ReplicaReader reader =
              new ReplicaReader(
                  s3.endpoint(),
                  region,
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY,
                  TARGET_BUCKET,
                  tablePath)) {
        List<String> serviceArgs =
            serviceArguments(s3.endpoint().toString(), sqs.endpoint().toString());
        source.commit();
        for (int i = 0; i < settings.instances(); i++) {
          instances.add(start(i, serviceArgs, work));
        }
        for (Instance instance : instances) {
          while (!ServiceJar.isHealthy(instance.port()) && instance.process().isAlive()) {
            CrashCampaign.sleep(100);
          }
        }
        awaitHead(reader, source.head(), instances, "the new table");
        out.printf("  setup: %d instances replicated the new table%n", instances.size());

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong writerErrors = new AtomicLong();
        Thread writer =
            new Thread(
                () -> {
                  while (writing.get()) {
                    try {
                      source.commit();
                    } catch (Throwable e) {
                      writerErrors.incrementAndGet();
                    }
                    CrashCampaign.sleep(settings.commitInterval().toMillis());
                  }
                },
                "campaign-writer");
        writer.start();

        Map<String, Integer> atPoint = new TreeMap<>();
        int randomPauses = 0;
        int performed = 0;
        int takenOver = 0;
        int staleAttempted = 0;
        int staleRefused = 0;
        List<String> landed = new ArrayList<>();
        for (int p = 1; p <= settings.pauses(); p++) {
          // two pauses in three at a write point, the first one always
          String point =
              p == 1 || random.nextInt(3) > 0 ? POINTS.get((p - 1) % POINTS.size()) : null;
          // with instance 0's clock ahead, the others judge its lease valid minutes past the TTL
          // and never take its table over while it is stopped: the pauses at a write point stop
          // one of them, which instance 0 takes over as soon as its lease is past the TTL
          Instance instance =
              point != null && skewed()
                  ? instances.get(1 + random.nextInt(instances.size() - 1))
                  : instances.get(random.nextInt(instances.size()));
          long pauseStart = System.nanoTime();
          performed++;
          int markersBefore = count(instance.logText(), "PAUSE-POINT ");
          boolean atWrite = false;
          if (point != null) {
            Files.writeString(instance.arm(), point);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline
                && count(instance.logText(), "PAUSE-POINT ") == markersBefore) {
              CrashCampaign.sleep(50);
            }
            Files.deleteIfExists(instance.arm());
            // the hook deletes the file as it pauses: a marker may follow the deadline by a moment
            CrashCampaign.sleep(200);
            atWrite = count(instance.logText(), "PAUSE-POINT ") > markersBefore;
          }
          long epochAtPause = epoch(s3Client, stateKey);
          if (!atWrite) {
            signal("STOP", instance.pid());
            randomPauses++;
          } else {
            atPoint.merge(point, 1, Integer::sum);
          }
          // past the lease TTL, and until another instance wrote the state under a newer epoch
          CrashCampaign.sleep(settings.lockTtl().toMillis() + 1000);
          long deadline = System.nanoTime() + settings.lockTtl().multipliedBy(6).toNanos();
          long epochNow = epoch(s3Client, stateKey);
          while (epochNow == epochAtPause && System.nanoTime() < deadline) {
            CrashCampaign.sleep(100);
            epochNow = epoch(s3Client, stateKey);
          }
          boolean overtaken = epochNow != epochAtPause;
          if (overtaken) {
            takenOver++;
          }
          long hintAtCont = hint(s3Client, hintKey);
          int resumedBefore = count(instance.logText(), "PAUSE-RESUMED ");
          int logLength = instance.logText().length();
          signal("CONT", instance.pid());
          String outcome = "";
          if (atWrite && overtaken) {
            staleAttempted++;
            // a stale hint may move the hint to the version it follows, never back
            boolean refused =
                "hint".equals(point)
                    ? awaitHintKept(instance, resumedBefore, s3Client, hintKey, hintAtCont)
                    : awaitRefusal(instance, resumedBefore, logLength);
            if (refused) {
              staleRefused++;
              outcome = ", stale write refused";
            } else {
              outcome = ", stale write NOT refused";
              landed.add("pause " + p + " at " + point + " of instance " + instance.index());
            }
          }
          out.printf(
              "  pause %3d of instance %d (pid %d) %s for %.1f s, state epoch %d -> %d%s%n",
              p,
              instance.index(),
              instance.pid(),
              atWrite ? "at " + point : "at a random moment",
              (System.nanoTime() - pauseStart) / 1e9,
              epochAtPause,
              epochNow,
              outcome);
          out.flush();
          if (!landed.isEmpty()) {
            // the replica is no longer the replicator's own: further pauses test nothing
            break;
          }
          CrashCampaign.sleep(500 + random.nextInt(1500));
        }

        writing.set(false);
        writer.join();
        int committed = source.commits();
        boolean converged = awaitHeadQuietly(reader, source.head());

        List<String> diverged = new ArrayList<>();
        for (Instance instance : instances) {
          String status = replications(instance.port());
          if (!status.startsWith("200 ") || status.contains("DIVERGED")) {
            diverged.add(
                "instance " + instance.index() + " shows DIVERGED or no status: " + status);
          }
          String log = instance.logText();
          if (log.contains("DIVERGED") || log.contains("behind its back")) {
            diverged.add("instance " + instance.index() + " logged a diverged replica");
          }
        }
        for (Instance instance : instances) {
          instance.process().destroy();
          instance.process().waitFor();
        }

        Map<Integer, String> versions = reader.versions();
        List<String> sourceNames = new ArrayList<>();
        List<String> committedNames = new ArrayList<>();
        source.metadataFiles().forEach(f -> committedNames.add(ReplicaReader.fileName(f)));
        for (String v : versions.values()) {
          sourceNames.add(reader.sourceFileOf(v));
        }
        Set<String> distinct = new HashSet<>(sourceNames);
        int duplicates = sourceNames.size() - distinct.size();
        Set<String> replicated = new HashSet<>(distinct);
        replicated.retainAll(new HashSet<>(committedNames));
        boolean inOrder = inOrder(sourceNames, committedNames);

        List<String> problems = new ArrayList<>();
        String current = reader.currentMetadataFile();
        long[] compared =
            current == null
                ? new long[] {0, source.recordedRows().size(), 0}
                : reader.compare(current, source.recordedRows(), problems);
        List<String> refProblems =
            current == null
                ? List.of("no replica")
                : reader.refProblems(current, source.refs(), source.currentSnapshotId());
        double wall = (System.nanoTime() - started) / 1e9;

        out.println();
        out.println(
            "| pause campaign (seed "
                + settings.seed()
                + ", "
                + settings.instances()
                + " instances, lease TTL "
                + settings.lockTtl().toSeconds()
                + " s"
                + (skewed()
                    ? ", instance 0's clock " + settings.clockAhead().toSeconds() + " s ahead"
                    : "")
                + ") | |");
        out.println("|---|---|");
        row(
            "pauses (SIGSTOP past the lease TTL, then SIGCONT)",
            performed
                + " ("
                + randomPauses
                + " at a random moment; at a write point: "
                + atPoint
                + "; "
                + takenOver
                + " taken over by another instance meanwhile)");
        row("stale writes attempted / refused by the store", staleAttempted + " / " + staleRefused);
        row(
            "source commits",
            committed
                + " "
                + source.operations()
                + (writerErrors.get() > 0 ? ", writer errors " + writerErrors.get() : ""));
        row("converged to the source head", converged ? "yes" : "NO");
        row(
            "source commits replicated / committed / lost",
            replicated.size() + " / " + committed + " / " + (committed - replicated.size()));
        row(
            "replica versions / source versions replicated twice / in source order",
            versions.size() + " / " + duplicates + " / " + (inOrder ? "yes" : "NO"));
        row(
            "snapshots compared / missing / mismatches",
            compared[0] + " / " + compared[1] + " / " + compared[2]);
        row("tables diverged", Integer.toString(diverged.size()));
        row("wall time", String.format("%.1f s", wall));
        landed.forEach(l -> out.println("stale write not refused: " + l));
        diverged.forEach(d -> out.println("diverged: " + d));
        problems.stream().limit(10).forEach(m -> out.println("mismatch: " + m));
        Verdict verdict =
            new Verdict()
                .check("at least one stale write attempted", staleAttempted > 0)
                .check("every stale write refused", staleRefused == staleAttempted)
                .check("no writer error", writerErrors.get() == 0)
                .check("no table diverged", diverged.isEmpty())
                .check("replica versions in source order", inOrder)
                .replicaChecks(
                    converged,
                    replicated.size(),
                    committed,
                    duplicates,
                    compared[0],
                    compared[1],
                    compared[2],
                    refProblems);
        boolean ok = verdict.ok();
        out.println(ok ? "pause campaign: OK" : "pause campaign: FAILED " + verdict.failed());
        if (!ok) {
          out.println("service logs: " + work);
        }
        out.flush();
        return ok;
      }
    } finally {
      for (Instance instance : instances) {
        if (instance.process().isAlive()) {
          signal("CONT", instance.pid());
          instance.process().destroyForcibly();
        }
      }
    }
  }

  /** Whether instance 0 runs with its clock ahead of the others'. */
  private boolean skewed() {
    return settings.clockAhead() != null && !settings.clockAhead().isZero();
  }

  /** Whether the replica's versions name source versions in the order they were committed. */
  static boolean inOrder(List<String> replicaSources, List<String> committed) {
    int last = -1;
    for (String name : replicaSources) {
      int at = committed.indexOf(name);
      if (at >= 0) {
        if (at <= last) {
          return false;
        }
        last = at;
      }
    }
    return true;
  }

  /**
   * Waits for the continued process to report its write refused (the store's answer, logged as the
   * lease lost), after its resume marker.
   */
  private static boolean awaitRefusal(Instance instance, int resumedBefore, int logLength) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      String log = instance.logText();
      if (count(log, "PAUSE-RESUMED ") > resumedBefore) {
        String after = log.substring(Math.min(logLength, log.length()));
        if (REFUSALS.stream().anyMatch(after::contains)) {
          return true;
        }
      }
      CrashCampaign.sleep(100);
    }
    return false;
  }

  /**
   * Waits for the continued process to resume past its hint write, then whether the hint still
   * names at least the version it named before the process was continued.
   */
  private static boolean awaitHintKept(
      Instance instance, int resumedBefore, S3Client s3, String hintKey, long hintAtCont) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline
        && count(instance.logText(), "PAUSE-RESUMED ") <= resumedBefore) {
      CrashCampaign.sleep(100);
    }
    // the resumed process writes its hint right after the marker
    CrashCampaign.sleep(2000);
    return count(instance.logText(), "PAUSE-RESUMED ") > resumedBefore
        && hint(s3, hintKey) >= hintAtCont;
  }

  /** The version the replica's hint names; -1 while there is none. */
  private static long hint(S3Client s3, String key) {
    try {
      return Long.parseLong(
          s3.getObject(b -> b.bucket(TARGET_BUCKET).key(key), ResponseTransformer.toBytes())
              .asUtf8String()
              .trim());
    } catch (NoSuchKeyException | NumberFormatException e) {
      return -1;
    }
  }

  /** The fencing epoch the replica's state records; -1 while there is none. */
  private static long epoch(S3Client s3, String key) {
    try {
      String json =
          s3.getObject(b -> b.bucket(TARGET_BUCKET).key(key), ResponseTransformer.toBytes())
              .asUtf8String();
      Matcher m = EPOCH.matcher(json);
      return m.find() ? Long.parseLong(m.group(1)) : 0;
    } catch (NoSuchKeyException e) {
      return -1;
    }
  }

  private static String replications(int port) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/replications"))
                  .header("Authorization", "Bearer " + API_TOKEN)
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
  }

  private static int count(String text, String marker) {
    int n = 0;
    for (int at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
      n++;
    }
    return n;
  }

  private void awaitHead(ReplicaReader reader, String head, List<Instance> instances, String what) {
    if (!awaitHeadQuietly(reader, head)) {
      throw new IllegalStateException(
          "The service did not replicate " + what + "; see " + instances.get(0).log());
    }
  }

  private boolean awaitHeadQuietly(ReplicaReader reader, String head) {
    long deadline = System.nanoTime() + settings.convergeTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      try {
        String current = reader.currentMetadataFile();
        if (current != null && ReplicaReader.fileName(head).equals(reader.sourceFileOf(current))) {
          return true;
        }
      } catch (RuntimeException e) {
        // not yet readable
      }
      CrashCampaign.sleep(250);
    }
    return false;
  }

  private void row(String name, String value) {
    out.println("| " + name + " | " + value + " |");
  }

  private List<String> serviceArguments(String s3Endpoint, String sqsEndpoint) {
    List<String> args = new ArrayList<>(CampaignService.arguments(s3Endpoint, sqsEndpoint));
    // a paused holder's lease expires within seconds, so another instance takes the table over
    args.add("--replicator.s3.lock-ttl=PT" + settings.lockTtl().toMillis() / 1000.0 + "S");
    args.add("--replicator.s3.retry.initial-backoff=PT0.05S");
    args.add("--replicator.reconciliation-interval=PT2S");
    args.add("--replicator.retry.initial-backoff=PT0.5S");
    args.add("--replicator.retry.max-backoff=PT2S");
    args.add("--replicator.api.token=" + API_TOKEN);
    return args;
  }

  private Instance start(int index, List<String> serviceArgs, Path work) throws IOException {
    int port = LoopbackPort.free();
    Path log = work.resolve("instance-" + index + ".log");
    Path arm = work.resolve("instance-" + index + ".pause");
    List<String> jvm = new ArrayList<>(settings.jvmOptions());
    jvm.add("-Dreplicator.test.pause-at=" + String.join(",", POINTS));
    jvm.add("-Dreplicator.test.pause-arm=" + arm.toAbsolutePath());
    if (index == 0 && skewed()) {
      // its leases' expiry judged by a clock ahead: it sees the others' leases expire early
      jvm.add("-Dreplicator.test.clock-offset=" + settings.clockAhead());
    }
    List<String> arguments = new ArrayList<>();
    arguments.add("serve");
    arguments.add("--server.port=" + port);
    arguments.addAll(serviceArgs);
    Process process = new ServiceJar(settings.jar(), jvm).start(log, arguments);
    return new Instance(index, process, log, arm, port);
  }
}
