package io.icerepl.lab.bench;

import io.icerepl.lab.campaign.ServiceJar;
import io.icerepl.lab.local.EmbeddedAws;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.merge.ReplicaProperties;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A fleet of tables under load, replicated by 1, 2, 4… service processes sharing one queue, as a
 * scaled-out deployment runs: each process is the service jar ({@code serve}) on the embedded S3
 * and SQS, each table's lease decides which of them replicates it. Writers commit one tiny append
 * to every table at a fixed interval, staggered, through a JDBC catalog whose FileIO sends each
 * metadata file's S3 event as S3 would; a poller reads each replica as a reader does.
 *
 * <p>Per instance count it prints commits replicated per second, lag from a commit returning to the
 * replica showing it (p50/p90/p99/max) against the writer's own commit, the backlog (commits
 * written, not yet shown) in the first and second half of the window, the CPU each process used and
 * per replicated commit, lease takeovers, and whether each table's commits reached the replica
 * exactly once and in source order ({@link FleetOrderCheck}, read back with Iceberg's parser).
 * Instance counts are interleaved across rounds, so that a drift of the machine spreads over all.
 */
public final class FleetBenchmark {
  /** What a run does. */
  public record Settings(
      Path jar,
      List<String> jvmOptions,
      int tables,
      int intervalMs,
      int warmUpSeconds,
      int seconds,
      List<Integer> instances,
      int rounds,
      int writers,
      int pollMs) {
    public Settings {
      jvmOptions = List.copyOf(jvmOptions);
      instances = List.copyOf(instances);
    }
  }

  /** One round's figures for one instance count. */
  record Round(
      int instances,
      double writtenPerSecond,
      double replicatedPerSecond,
      double[] lagMs,
      double[] commitMs,
      double backlogFirstHalf,
      double backlogSecondHalf,
      double serviceCores,
      double labCores,
      double serviceCpuMsPerCommit,
      int takeovers,
      int busy,
      int commitsChecked,
      List<String> problems) {}

  private static final String LEASE_TAKEN = "took over the lease of";
  private static final Pattern BUSY = Pattern.compile("Cannot lock table|locked by");
  private static final Duration FIRST_COMMITS_DEADLINE = Duration.ofMinutes(4);
  private static final Duration DRAIN_DEADLINE = Duration.ofMinutes(2);

  private final PrintWriter out;

  public FleetBenchmark(PrintWriter out) {
    this.out = out;
  }

  /** Runs every round; true when every table's commits reached its replica once, in order. */
  public boolean run(Settings settings) throws Exception {
    out.printf(
        "fleet: %d tables, one commit each every %d ms (%.1f commits/s offered) by %d writers; %d s"
            + " warm-up, %d s measured; service processes %s, %d round(s), interleaved; jar %s%n",
        settings.tables(),
        settings.intervalMs(),
        settings.tables() * 1000.0 / settings.intervalMs(),
        settings.writers(),
        settings.warmUpSeconds(),
        settings.seconds(),
        settings.instances(),
        settings.rounds(),
        settings.jar());
    out.printf(
        "machine: %d processors; service JVM options %s%n",
        Runtime.getRuntime().availableProcessors(), settings.jvmOptions());
    out.flush();
    Map<Integer, List<Round>> byInstances = new TreeMap<>();
    boolean allOk = true;
    for (int r = 0; r < settings.rounds(); r++) {
      List<Integer> order = new ArrayList<>(settings.instances());
      Collections.rotate(order, -r);
      for (int instances : order) {
        Round round = round(settings, instances);
        byInstances.computeIfAbsent(instances, k -> new ArrayList<>()).add(round);
        printRound(r + 1, round);
        allOk &= round.problems().isEmpty();
      }
    }
    printSummary(byInstances);
    return allOk;
  }

  private void printRound(int number, Round round) {
    out.printf(
        "round %d, %d instance(s): written %.1f/s, replicated %.1f/s, lag p50 %.0f p99 %.0f max"
            + " %.0f ms, backlog %.1f -> %.1f, service CPU %.2f cores, %d takeover(s), %d busy,"
            + " %s%n",
        number,
        round.instances(),
        round.writtenPerSecond(),
        round.replicatedPerSecond(),
        LagBenchmark.pct(round.lagMs(), 50),
        LagBenchmark.pct(round.lagMs(), 99),
        round.lagMs()[round.lagMs().length - 1],
        round.backlogFirstHalf(),
        round.backlogSecondHalf(),
        round.serviceCores(),
        round.takeovers(),
        round.busy(),
        round.problems().isEmpty()
            ? "exactly once, in order (" + round.commitsChecked() + " commits)"
            : "FAILED: " + round.problems().subList(0, Math.min(3, round.problems().size())));
    out.flush();
  }

  private void printSummary(Map<Integer, List<Round>> byInstances) {
    out.println();
    out.println("median [min-max] over rounds");
    List<String> header = new ArrayList<>(List.of("| figure |"));
    List<String> line = new ArrayList<>(List.of("|---|"));
    byInstances.keySet().forEach(k -> header.add(" " + k + " instance(s) |"));
    byInstances.keySet().forEach(k -> line.add("---|"));
    out.println(String.join("", header));
    out.println(String.join("", line));
    row(byInstances, "commits written /s", "%.1f", Round::writtenPerSecond);
    row(byInstances, "commits replicated /s", "%.1f", Round::replicatedPerSecond);
    row(byInstances, "lag p50 (ms)", "%.0f", r -> LagBenchmark.pct(r.lagMs(), 50));
    row(byInstances, "lag p90 (ms)", "%.0f", r -> LagBenchmark.pct(r.lagMs(), 90));
    row(byInstances, "lag p99 (ms)", "%.0f", r -> LagBenchmark.pct(r.lagMs(), 99));
    row(byInstances, "lag max (ms)", "%.0f", r -> r.lagMs()[r.lagMs().length - 1]);
    row(byInstances, "writer's commit p50 (ms)", "%.0f", r -> LagBenchmark.pct(r.commitMs(), 50));
    row(byInstances, "backlog, first half", "%.1f", Round::backlogFirstHalf);
    row(byInstances, "backlog, second half", "%.1f", Round::backlogSecondHalf);
    row(byInstances, "service CPU, all processes (cores)", "%.2f", Round::serviceCores);
    row(
        byInstances,
        "service CPU per process (cores)",
        "%.2f",
        r -> r.serviceCores() / r.instances());
    row(
        byInstances,
        "service CPU per replicated commit (ms)",
        "%.1f",
        Round::serviceCpuMsPerCommit);
    row(byInstances, "writers + embedded S3/SQS CPU (cores)", "%.2f", Round::labCores);
    row(byInstances, "lease takeovers", "%.0f", r -> r.takeovers());
    row(byInstances, "runs refused, table busy", "%.0f", r -> r.busy());
    out.flush();
  }

  private void row(
      Map<Integer, List<Round>> byInstances,
      String name,
      String format,
      ToDoubleFunction<Round> figure) {
    StringBuilder row = new StringBuilder("| " + name + " |");
    for (List<Round> rounds : byInstances.values()) {
      double[] values = rounds.stream().mapToDouble(figure).sorted().toArray();
      double median =
          values.length % 2 == 1
              ? values[values.length / 2]
              : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
      row.append(' ').append(String.format(format, median));
      if (values.length > 1) {
        row.append(" [")
            .append(String.format(format, values[0]))
            .append('-')
            .append(String.format(format, values[values.length - 1]))
            .append(']');
      }
      row.append(" |");
    }
    out.println(row);
  }

  private Round round(Settings settings, int instances) throws Exception {
    Path dir = Files.createTempDirectory("fleet-benchmark");
    List<Process> services = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    boolean finished = false;
    try (EmbeddedAws aws = EmbeddedAws.start();
        S3Client s3 = aws.s3().client();
        S3FileIO io = replicaIo(aws)) {
      String uri =
          "jdbc:sqlite:" + dir.resolve("catalog.db") + "?journal_mode=WAL&busy_timeout=10000";
      JdbcCatalog catalog = LagBenchmark.eventCatalog(aws, uri);
      try {
        catalog.createNamespace(Namespace.of("ns"));
        List<Tracked> tables = new ArrayList<>();
        for (int i = 0; i < settings.tables(); i++) {
          String name = String.format("t%03d", i);
          Table table =
              catalog.createTable(
                  TableIdentifier.of("ns", name),
                  LagBenchmark.SCHEMA,
                  PartitionSpec.unpartitioned(),
                  Map.of("format-version", "2"));
          Tracked tracked = new Tracked(name, table);
          tracked.commit(false);
          tables.add(tracked);
        }
        ServiceJar jar = new ServiceJar(settings.jar(), settings.jvmOptions());
        for (int i = 0; i < instances; i++) {
          Path log = dir.resolve("service-" + i + ".log");
          logs.add(log);
          services.add(jar.start(log, serviceArguments(aws, uri)));
        }
        Poller poller = new Poller(s3, tables, settings.pollMs());
        awaitShown(tables, poller, services, logs, FIRST_COMMITS_DEADLINE, "first commits");

        Thread polling = new Thread(poller, "fleet-poller");
        polling.start();
        ScheduledThreadPoolExecutor writers = new ScheduledThreadPoolExecutor(settings.writers());
        AtomicReference<Exception> writeFailure = new AtomicReference<>();
        AtomicInteger measuredCommits = new AtomicInteger();
        AtomicLongArray window = new AtomicLongArray(2);
        for (int i = 0; i < tables.size(); i++) {
          Tracked table = tables.get(i);
          writers.scheduleAtFixedRate(
              () -> {
                try {
                  long now = System.nanoTime();
                  boolean measured =
                      window.get(0) != 0 && now >= window.get(0) && window.get(1) == 0;
                  table.commit(measured);
                  if (measured) {
                    measuredCommits.incrementAndGet();
                  }
                } catch (Exception e) {
                  writeFailure.compareAndSet(null, e);
                }
              },
              (long) i * settings.intervalMs() / tables.size(),
              settings.intervalMs(),
              TimeUnit.MILLISECONDS);
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(settings.warmUpSeconds()));
        Cpu before = Cpu.of(services);
        window.set(0, System.nanoTime());
        poller.window(window.get(0), 0);
        Thread.sleep(TimeUnit.SECONDS.toMillis(settings.seconds()));
        window.set(1, System.nanoTime());
        poller.window(window.get(0), window.get(1));
        Cpu after = Cpu.of(services);
        writers.shutdown();
        writers.awaitTermination(1, TimeUnit.MINUTES);
        poller.stop();
        polling.join();
        if (writeFailure.get() != null) {
          throw new IllegalStateException("a writer's commit failed", writeFailure.get());
        }
        awaitShown(tables, poller, services, logs, DRAIN_DEADLINE, "commits");

        List<Commit> measured = new ArrayList<>();
        tables.forEach(t -> t.commits.stream().filter(c -> c.measured).forEach(measured::add));
        if (measured.isEmpty()) {
          throw new IllegalStateException(
              "no commit fell in the measured window; lengthen --seconds");
        }
        double seconds = (window.get(1) - window.get(0)) / 1e9;
        long lastShown = measured.stream().mapToLong(c -> c.shown).max().orElseThrow();
        double[] lagMs =
            measured.stream().mapToDouble(c -> (c.shown - c.written) / 1e6).sorted().toArray();
        double[] commitMs = measured.stream().mapToDouble(c -> c.commitMs).sorted().toArray();
        double serviceCpuSeconds = after.services() - before.services();
        List<String> problems = new ArrayList<>();
        int checked = check(io, catalog, tables, problems);
        poller.backwards().forEach(problems::add);
        finished = true;
        return new Round(
            instances,
            measuredCommits.get() / seconds,
            measured.size() / ((lastShown - window.get(0)) / 1e9),
            lagMs,
            commitMs,
            poller.backlog(true),
            poller.backlog(false),
            serviceCpuSeconds / seconds,
            (after.lab() - before.lab()) / seconds,
            serviceCpuSeconds * 1000 / measured.size(),
            count(logs, Pattern.compile(Pattern.quote(LEASE_TAKEN))),
            count(logs, BUSY),
            checked,
            problems);
      } finally {
        for (Process service : services) {
          service.destroy();
        }
        for (Process service : services) {
          if (!service.waitFor(30, TimeUnit.SECONDS)) {
            service.destroyForcibly().waitFor();
          }
        }
        catalog.close();
      }
    } finally {
      if (finished) {
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
      } else {
        // the services' logs tell why a round failed
        System.err.println("fleet: the failed round's catalog and service logs are kept in " + dir);
      }
    }
  }

  private static List<String> serviceArguments(EmbeddedAws aws, String uri) {
    List<String> args = new ArrayList<>();
    args.add("serve");
    args.add("--server.port=0");
    args.addAll(aws.springArguments());
    args.add("--logging.level.root=WARN");
    // lease takeovers are logged at INFO
    args.add("--logging.level.io.icerepl.copier.s3=INFO");
    args.add("--replicator.rules[0].name=bench");
    args.add(
        "--replicator.rules[0].source-catalog=name=bench,type=jdbc,uri="
            + uri
            + ",warehouse=s3://"
            + EmbeddedAws.SOURCE_BUCKET
            + "/warehouse");
    args.add("--replicator.rules[0].targets[0].name=replica");
    args.add(
        "--replicator.rules[0].targets[0].prefix=s3://" + EmbeddedAws.TARGET_BUCKET + "/warehouse");
    return args;
  }

  private void awaitShown(
      List<Tracked> tables,
      Poller poller,
      List<Process> services,
      List<Path> logs,
      Duration deadline,
      String what)
      throws Exception {
    long until = System.nanoTime() + deadline.toNanos();
    while (!poller.sweep()) {
      for (int i = 0; i < services.size(); i++) {
        if (!services.get(i).isAlive()) {
          throw new IllegalStateException(
              "service process " + i + " exited; its log ends:\n" + tail(logs.get(i)));
        }
      }
      if (System.nanoTime() > until) {
        long behind = tables.stream().filter(t -> t.shown < t.written).count();
        throw new IllegalStateException(
            behind
                + " of "
                + tables.size()
                + " replicas did not show their "
                + what
                + " within "
                + deadline.toSeconds()
                + " s; the first service's log ends:\n"
                + tail(logs.get(0)));
      }
      Thread.sleep(50);
    }
  }

  /**
   * Reads every replica metadata version of every table with Iceberg's parser and checks it against
   * the source table ({@link FleetOrderCheck}); returns the commits checked.
   */
  private static int check(
      S3FileIO io, JdbcCatalog catalog, List<Tracked> tables, List<String> problems) {
    int checked = 0;
    for (Tracked tracked : tables) {
      String prefix = "warehouse/ns/" + tracked.name + "/metadata/";
      List<FleetOrderCheck.ReplicaVersion> versions = new ArrayList<>();
      io.listPrefix("s3://" + EmbeddedAws.TARGET_BUCKET + "/" + prefix)
          .forEach(
              f -> {
                Matcher m = REPLICA_VERSION.matcher(f.location());
                if (m.find()) {
                  TableMetadata metadata = TableMetadataParser.read(io, f.location());
                  versions.add(
                      new FleetOrderCheck.ReplicaVersion(
                          Integer.parseInt(m.group(1)),
                          metadata.properties().get(ReplicaProperties.SOURCE_METADATA_FILE),
                          snapshotIds(metadata.snapshots())));
                }
              });
      versions.sort(Comparator.comparingInt(FleetOrderCheck.ReplicaVersion::version));
      Table source = catalog.loadTable(TableIdentifier.of("ns", tracked.name));
      List<Long> sourceIds = new ArrayList<>();
      source.snapshots().forEach(s -> sourceIds.add(s.snapshotId()));
      problems.addAll(FleetOrderCheck.problems(tracked.name, versions, sourceIds));
      checked += sourceIds.size();
    }
    return checked;
  }

  private static final Pattern REPLICA_VERSION = Pattern.compile("/v(\\d+)\\.metadata\\.json$");

  private static List<Long> snapshotIds(List<Snapshot> snapshots) {
    List<Long> ids = new ArrayList<>();
    snapshots.stream()
        .sorted(Comparator.comparingLong(Snapshot::sequenceNumber))
        .forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }

  private static S3FileIO replicaIo(EmbeddedAws aws) {
    S3FileIO io = new S3FileIO();
    io.initialize(
        Map.of(
            "s3.endpoint",
            aws.s3().endpoint().toString(),
            "s3.path-style-access",
            "true",
            "s3.access-key-id",
            EmbeddedS3.ACCESS_KEY,
            "s3.secret-access-key",
            EmbeddedS3.SECRET_KEY,
            "client.region",
            EmbeddedS3.REGION.id()));
    return io;
  }

  private static int count(List<Path> logs, Pattern pattern) throws IOException {
    int count = 0;
    for (Path log : logs) {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (pattern.matcher(line).find()) {
          count++;
        }
      }
    }
    return count;
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  /** CPU seconds used so far by the service processes, and by this process. */
  private record Cpu(double services, double lab) {
    static Cpu of(List<Process> services) {
      double total = 0;
      for (Process service : services) {
        total += seconds(service.info().totalCpuDuration().orElse(Duration.ZERO));
      }
      return new Cpu(
          total, seconds(ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO)));
    }

    private static double seconds(Duration d) {
      return d.toNanos() / 1e9;
    }
  }

  /** One commit: when it returned to the writer, how long it took, when the replica showed it. */
  private static final class Commit {
    final long written;
    final double commitMs;
    final boolean measured;
    volatile long shown;

    Commit(long written, double commitMs, boolean measured) {
      this.written = written;
      this.commitMs = commitMs;
      this.measured = measured;
    }
  }

  /** A source table, its commits in order, and how far its replica is known to show them. */
  private static final class Tracked {
    final String name;
    final Table table;
    final String replicaMetadata;
    final List<Commit> commits = Collections.synchronizedList(new ArrayList<>());
    final Map<String, Integer> indexOf = new ConcurrentHashMap<>();
    volatile int written = -1;

    /** The last commit the replica showed; the poller's alone. */
    volatile int shown = -1;

    Tracked(String name, Table table) {
      this.name = name;
      this.table = table;
      this.replicaMetadata = "warehouse/ns/" + name + "/metadata/";
    }

    /** One tiny append; a table's commits are never concurrent (one scheduled task per table). */
    void commit(boolean measured) {
      int index = commits.size();
      var file = LagBenchmark.tinyFile(table, index);
      long before = System.nanoTime();
      table.newFastAppend().appendFile(file).commit();
      long after = System.nanoTime();
      commits.add(new Commit(after, (after - before) / 1e6, measured));
      indexOf.put(LagBenchmark.fileName(S3Warehouse.metadataFile(table)), index);
      written = index;
    }
  }

  /**
   * Reads the replicas of the tables with commits not yet shown, every {@code pollMs}, as a reader
   * would; samples the backlog each second of the measured window.
   */
  private static final class Poller implements Runnable {
    private final S3Client s3;
    private final List<Tracked> tables;
    private final int pollMs;
    private final List<String> backwards = Collections.synchronizedList(new ArrayList<>());

    /** {nanoTime, backlog} each second of the measured window. */
    private final List<long[]> samples = Collections.synchronizedList(new ArrayList<>());

    private volatile boolean stopped;
    private volatile long windowStart;
    private volatile long windowEnd;

    Poller(S3Client s3, List<Tracked> tables, int pollMs) {
      this.s3 = s3;
      this.tables = tables;
      this.pollMs = pollMs;
    }

    @Override
    public void run() {
      long nextSample = 0;
      while (!stopped) {
        sweep();
        long now = System.nanoTime();
        if (windowStart != 0 && windowEnd == 0 && now >= nextSample) {
          long backlog = 0;
          for (Tracked t : tables) {
            backlog += Math.max(0, t.written - t.shown);
          }
          samples.add(new long[] {now, backlog});
          nextSample = now + TimeUnit.SECONDS.toNanos(1);
        }
        try {
          Thread.sleep(pollMs);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    void window(long start, long end) {
      windowStart = start;
      windowEnd = end;
    }

    void stop() {
      stopped = true;
    }

    /** The mean backlog over the first or the second half of the measured window. */
    double backlog(boolean first) {
      long middle = windowStart + (windowEnd - windowStart) / 2;
      synchronized (samples) {
        return samples.stream()
            .filter(s -> (s[0] < middle) == first)
            .mapToLong(s -> s[1])
            .average()
            .orElse(0);
      }
    }

    List<String> backwards() {
      return backwards;
    }

    /** One pass over the tables behind; true when none is. */
    boolean sweep() {
      boolean caughtUp = true;
      for (Tracked t : tables) {
        int written = t.written;
        if (t.shown >= written) {
          continue;
        }
        String file;
        try {
          file = LagBenchmark.replicaSourceFile(s3, t.replicaMetadata);
        } catch (RuntimeException e) {
          // a hint read mid-write or a transient error: the next pass sees it
          caughtUp = false;
          continue;
        }
        long now = System.nanoTime();
        Integer index = file == null ? null : t.indexOf.get(file);
        if (index != null) {
          if (index < t.shown) {
            backwards.add(
                t.name + ": the replica went back from commit " + t.shown + " to " + index);
          }
          for (int i = t.shown + 1; i <= index; i++) {
            t.commits.get(i).shown = now;
          }
          t.shown = Math.max(t.shown, index);
        }
        if (t.shown < written) {
          caughtUp = false;
        }
      }
      return caughtUp;
    }
  }
}
