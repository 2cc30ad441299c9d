package io.icerepl.lab.campaign;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.LoopbackPort;
import io.icerepl.localstack.S3EventMessages;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The crash campaign: the service runs as a separate process and is killed with SIGKILL at random
 * moments while a writer keeps committing and a reader keeps opening the replica's current
 * metadata. At the end the service runs once more to convergence and every source snapshot is read
 * on the replica.
 */
public final class CrashCampaign {
  private static final String SOURCE_BUCKET = CampaignService.SOURCE_BUCKET;
  private static final String TARGET_BUCKET = CampaignService.TARGET_BUCKET;
  private static final String QUEUE = CampaignService.QUEUE;

  /** Settings; see the {@code campaign crash} options. */
  public record Settings(
      int kills,
      long seed,
      Path jar,
      Duration minDelay,
      Duration maxDelay,
      Duration commitInterval,
      Duration convergeTimeout,
      Duration readerPause,
      Path workDir,
      List<String> jvmOptions) {}

  private final Settings settings;
  private final PrintWriter out;

  public CrashCampaign(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the campaign, prints its figures and returns whether every check passed. */
  public boolean run() throws Exception {
    long started = System.nanoTime();
    Path work =
        settings.workDir() != null
            ? settings.workDir()
            : Files.createTempDirectory("icerepl-crash-");
    Files.createDirectories(work.resolve("s3"));
    Random random = new Random(settings.seed());
    int s3Port = LoopbackPort.free();
    int sqsPort = LoopbackPort.free();
    out.printf(
        "crash campaign: seed %d, %d kills, work folder %s%n",
        settings.seed(), settings.kills(), work);
    out.flush();
    try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), s3Port);
        EmbeddedSqs sqs = EmbeddedSqs.start(sqsPort);
        SqsClient sqsClient = sqs.client()) {
      s3.createBucket(SOURCE_BUCKET);
      s3.createBucket(TARGET_BUCKET);
      String queueUrl = sqs.createQueueWithDeadLetterQueue(QUEUE, 5, 5);
      String endpoint = s3.endpoint().toString();
      String region = EmbeddedS3.REGION.id();
      String tablePath = "warehouse/" + CampaignSource.NAMESPACE + "/" + CampaignSource.TABLE;

      try (CampaignSource source =
              new CampaignSource(
                  SOURCE_BUCKET,
                  s3.endpoint(),
                  region,
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY,
                  file -> publish(sqsClient, queueUrl, file),
                  settings.seed());
          ReplicaReader reader =
              new ReplicaReader(
                  s3.endpoint(),
                  region,
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY,
                  TARGET_BUCKET,
                  tablePath)) {
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
                    sleep(settings.commitInterval().toMillis());
                  }
                },
                "campaign-writer");

        ReaderLoop readerLoop =
            new ReaderLoop(reader::openAndScanCurrent, settings.readerPause().toMillis());
        Thread readerThread = new Thread(readerLoop, "campaign-reader");

        List<String> serviceArgs = serviceArguments(endpoint, sqs.endpoint().toString());
        Path log = work.resolve("service.log");
        // the table exists and is replicated before the campaign starts: a new table is backfilled
        // from its head, so from here on every source version must reach the replica
        source.commit();
        int port = LoopbackPort.free();
        StartToReady startToReady = new StartToReady();
        Process service = startService(serviceArgs, port, log);
        startToReady.started();
        int starts = 1;
        while (!ServiceJar.isHealthy(port) && service.isAlive()) {
          sleep(100);
        }
        startToReady.readyIf(service.isAlive());
        long setupDeadline = System.nanoTime() + settings.convergeTimeout().toNanos();
        while (!holdsHead(reader, source.head())) {
          if (System.nanoTime() > setupDeadline) {
            throw new IllegalStateException(
                "The service did not replicate the new table; see " + log);
          }
          sleep(250);
        }
        out.printf(
            "  setup: the service replicated the new table (%d source commit)%n", source.commits());
        writer.start();
        readerThread.start();

        int kills = 0;
        int killedWhileStarting = 0;
        int killedWhileBehind = 0;
        for (int k = 1; k <= settings.kills(); k++) {
          if (k > 1) {
            port = LoopbackPort.free();
            service = startService(serviceArgs, port, log);
            startToReady.started();
            starts++;
          }
          long startedAt = System.nanoTime();
          KillMoment moment = KillMoment.draw(k, random);
          long delay;
          if (moment == KillMoment.START_UP) {
            delay = 1000 + random.nextInt(4000);
          } else {
            while (!ServiceJar.isHealthy(port) && service.isAlive()) {
              sleep(100);
            }
            startToReady.readyIf(service.isAlive());
            if (moment == KillMoment.AFTER_COMMIT) {
              // the first kill lands as the event is published, the others up to 100 ms into
              // the service's run: receiving, copying, committing
              delay = k == 1 ? 0 : random.nextInt(100);
            } else {
              long min = settings.minDelay().toMillis();
              delay = min + (long) (random.nextDouble() * (settings.maxDelay().toMillis() - min));
            }
          }
          int versionsBefore = reader.versions().size();
          if (moment == KillMoment.AFTER_COMMIT) {
            awaitNextCommit(source);
          }
          sleep(delay);
          boolean ready = moment != KillMoment.START_UP || ServiceJar.isHealthy(port);
          int commitsAtKill = source.commits();
          service.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no graceful stop
          service.waitFor();
          kills++;
          boolean behind = ready && behind(reader, source, commitsAtKill);
          if (!ready) {
            killedWhileStarting++;
          } else if (behind) {
            killedWhileBehind++;
          }
          int replicaVersions = reader.versions().size();
          out.printf(
              "  kill %3d at %5d ms after %s (life %5.1f s, %s): replica %d -> %d versions, source %d"
                  + " commits%n",
              k,
              delay,
              moment.label(),
              (System.nanoTime() - startedAt) / 1e9,
              !ready ? "starting" : behind ? "replica behind" : "replica at the head",
              versionsBefore,
              replicaVersions,
              source.commits());
          out.flush();
        }

        writing.set(false);
        writer.join();
        int committed = source.commits();
        String head = source.head();
        int replicaVersionsBefore = reader.versions().size();

        // the last restart: it runs until the replica holds the source head
        port = LoopbackPort.free();
        long finalStart = System.nanoTime();
        service = startService(serviceArgs, port, log);
        startToReady.started();
        starts++;
        boolean converged = false;
        long deadline = System.nanoTime() + settings.convergeTimeout().toNanos();
        while (System.nanoTime() < deadline) {
          if (!startToReady.measured()) {
            startToReady.readyIf(ServiceJar.isHealthy(port));
          }
          try {
            if (holdsHead(reader, head)) {
              converged = true;
              break;
            }
          } catch (RuntimeException e) {
            // the reader thread counts failures; here we only wait
          }
          sleep(250);
        }
        double convergeSeconds = (System.nanoTime() - finalStart) / 1e9;
        // a few more reader rounds on the final state, then stop the reader
        sleep(500);
        readerLoop.stop();
        readerThread.join();
        service.destroy();
        service.waitFor();

        // what the replica holds: one replica version per source version, none twice
        Map<Integer, String> versions = reader.versions();
        List<String> sourceNames = new ArrayList<>();
        for (String v : versions.values()) {
          sourceNames.add(reader.sourceFileOf(v));
        }
        Set<String> distinct = new HashSet<>(sourceNames);
        int duplicates = sourceNames.size() - distinct.size();
        Set<String> committedNames = new HashSet<>();
        source.metadataFiles().forEach(f -> committedNames.add(ReplicaReader.fileName(f)));
        Set<String> replicated = new HashSet<>(distinct);
        replicated.retainAll(committedNames);

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
        problems.addAll(refProblems);
        double wall = (System.nanoTime() - started) / 1e9;

        out.println();
        out.println("| crash campaign (seed " + settings.seed() + ") | |");
        out.println("|---|---|");
        row(
            "kills (SIGKILL)",
            kills
                + " ("
                + (kills - killedWhileStarting)
                + " while serving, of which "
                + killedWhileBehind
                + " with the replica behind the source; "
                + killedWhileStarting
                + " while starting)");
        row("service starts (restarts)", starts + " (" + (starts - 1) + ")");
        row("service start to ready (median / max)", startToReady.summary());
        row(
            "reader opens of the current replica metadata",
            readerLoop.opens()
                + " ("
                + readerLoop.rows()
                + " rows scanned; "
                + readerLoop.notYet()
                + " polls before the replica existed)");
        row("reader failures", Long.toString(readerLoop.failures()));
        row(
            "source commits",
            committed
                + " "
                + source.operations()
                + (writerErrors.get() > 0 ? ", writer errors " + writerErrors.get() : ""));
        row(
            "replica versions before the last restart / committed by the last run",
            replicaVersionsBefore + " / " + (versions.size() - replicaVersionsBefore));
        row(
            "last restart: converged to the source head",
            converged
                ? String.format("yes, in %.1f s", convergeSeconds)
                : "NO (timeout " + settings.convergeTimeout().toSeconds() + " s)");
        row("source commits replicated / committed", replicated.size() + " / " + committed);
        row(
            "replica versions / source versions committed twice",
            versions.size() + " / " + duplicates);
        row(
            "snapshots compared / missing / mismatches",
            compared[0] + " / " + compared[1] + " / " + compared[2]);
        row(
            "refs / current snapshot as on the source",
            refProblems.isEmpty() ? "yes (" + source.refs().keySet() + ")" : "NO");
        row("wall time", String.format("%.1f s", wall));
        for (String m : readerLoop.failureMessages()) {
          out.println("reader failure: " + m);
        }
        problems.stream().limit(10).forEach(p -> out.println("mismatch: " + p));
        Verdict verdict =
            new Verdict()
                .check("the reader opened the replica", readerLoop.opens() > 0)
                .check("no reader failure", readerLoop.failures() == 0)
                .check("no writer error", writerErrors.get() == 0)
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
        out.println(ok ? "crash campaign: OK" : "crash campaign: FAILED " + verdict.failed());
        if (!ok) {
          out.println("service log: " + log);
        }
        out.flush();
        return ok;
      }
    }
  }

  /**
   * Seconds from each service process's start until its health endpoint answers 200 (the API
   * answers and the schedules and the event intake run), for the starts not killed before that.
   */
  private static final class StartToReady {
    private final List<Double> seconds = new ArrayList<>();
    private long startedAt;
    private boolean measured;

    void started() {
      startedAt = System.nanoTime();
      measured = false;
    }

    boolean measured() {
      return measured;
    }

    void readyIf(boolean ready) {
      if (ready && !measured) {
        seconds.add((System.nanoTime() - startedAt) / 1e9);
        measured = true;
      }
    }

    String summary() {
      if (seconds.isEmpty()) {
        return "no start reached ready";
      }
      return String.format(
          "%.1f s / %.1f s (%d starts measured, min %.1f s)",
          Spread.median(seconds),
          Spread.max(seconds),
          seconds.size(),
          seconds.stream().mapToDouble(Double::doubleValue).min().orElseThrow());
    }
  }

  /**
   * When a kill lands. A kill at a random moment of a serving process mostly finds it idle between
   * commits, where a crash tests little; two kills in five land right after a source commit, while
   * the service replicates it, and the first one always does; one in five during start-up.
   */
  private enum KillMoment {
    START_UP("start"),
    AFTER_COMMIT("commit"),
    SERVING("ready");

    private final String label;

    KillMoment(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }

    static KillMoment draw(int kill, Random random) {
      if (kill == 1) {
        return AFTER_COMMIT;
      }
      return switch (random.nextInt(5)) {
        case 0 -> START_UP;
        case 1, 2 -> AFTER_COMMIT;
        default -> SERVING;
      };
    }
  }

  /** Waits until the writer's next commit has published its event, or a few intervals pass. */
  private void awaitNextCommit(CampaignSource source) {
    int before = source.commits();
    long deadline =
        System.nanoTime() + settings.commitInterval().multipliedBy(3).plusSeconds(10).toNanos();
    while (source.commits() == before && System.nanoTime() < deadline) {
      sleep(1);
    }
  }

  /**
   * Whether the replica, read after the process died, lacks a source version committed before the
   * kill: the kill interrupted work, not an idle service.
   */
  private static boolean behind(ReplicaReader reader, CampaignSource source, int commitsAtKill) {
    try {
      String current = reader.currentMetadataFile();
      if (current == null) {
        return true;
      }
      String replicated = reader.sourceFileOf(current);
      List<String> files = source.metadataFiles();
      for (int i = files.size() - 1; i >= 0; i--) {
        if (ReplicaReader.fileName(files.get(i)).equals(replicated)) {
          return i < commitsAtKill - 1;
        }
      }
      return true;
    } catch (RuntimeException e) {
      return false; // an unreadable replica is the reader's failure to report, not a kill's
    }
  }

  private static boolean holdsHead(ReplicaReader reader, String head) {
    try {
      String current = reader.currentMetadataFile();
      return current != null && ReplicaReader.fileName(head).equals(reader.sourceFileOf(current));
    } catch (RuntimeException e) {
      return false;
    }
  }

  private void row(String name, String value) {
    out.println("| " + name + " | " + value + " |");
  }

  private List<String> serviceArguments(String s3Endpoint, String sqsEndpoint) {
    List<String> args = new ArrayList<>();
    args.addAll(CampaignService.arguments(s3Endpoint, sqsEndpoint));
    // a killed run leaves its lease behind: the next instance takes it over once expired
    args.add("--replicator.s3.lock-ttl=PT5S");
    args.add("--replicator.s3.retry.initial-backoff=PT0.05S");
    args.add("--replicator.reconciliation-interval=PT2S");
    args.add("--replicator.retry.initial-backoff=PT0.5S");
    args.add("--replicator.retry.max-backoff=PT2S");
    return args;
  }

  private Process startService(List<String> serviceArgs, int port, Path log) throws IOException {
    List<String> arguments = new ArrayList<>();
    arguments.add("serve");
    arguments.add("--server.port=" + port);
    arguments.addAll(serviceArgs);
    return new ServiceJar(settings.jar(), settings.jvmOptions()).start(log, arguments);
  }

  static void publish(SqsClient sqs, String queueUrl, String metadataFile) {
    String key = metadataFile.substring(("s3://" + SOURCE_BUCKET + "/").length());
    sqs.sendMessage(
        b ->
            b.queueUrl(queueUrl).messageBody(S3EventMessages.objectCreated(SOURCE_BUCKET, key, 0)));
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
