package io.icerepl.lab.bench;

import io.icerepl.lab.campaign.ServiceJar;
import io.icerepl.localstack.LoopbackPort;
import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * Wall time of one-shot commands of the service jar, each a JVM of its own: {@code --help}, the
 * first {@code replicate} of a small local table and a {@code replicate} of it once up to date; and
 * of {@code serve} with one rule over that table's folder, from its start until {@code
 * /actuator/health} answers {@code UP}, as the jar ships and as {@code bin/replicator} starts it.
 * Every round runs every way of starting the jar one after the other, and {@code java -version} as
 * the floor of any JVM, so a busy machine slows all of them alike; the figures are medians with the
 * spread (min-max) over the rounds.
 */
public final class StartupBenchmark {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  private final PrintWriter out;

  public StartupBenchmark(PrintWriter out) {
    this.out = out;
  }

  /**
   * @param jar the service jar
   * @param cds the folder {@code mvn package} extracts it to with its archives ({@code
   *     replicate.jsa}); the ways that need it are left out when it is missing
   */
  public void run(Path work, Path jar, Path cds, int rounds) throws Exception {
    Files.createDirectories(work);
    Path warehouse = work.resolve("warehouse");
    String source = writeTable(warehouse.resolve("bench").resolve("orders"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Map<String, List<String>> ways = new LinkedHashMap<>();
    ways.put("service jar (java -jar)", List.of(java, "-jar", jar.toString()));
    Path extracted = cds.resolve("replicator-app.jar");
    Path archive = cds.resolve("replicate.jsa");
    if (Files.isRegularFile(extracted) && Files.isRegularFile(archive)) {
      ways.put("extracted", List.of(java, "-jar", extracted.toString()));
      ways.put(
          "extracted + CDS",
          List.of(java, "-XX:SharedArchiveFile=" + archive, "-jar", extracted.toString()));
      ways.put(
          "extracted + CDS + C1",
          List.of(
              java,
              "-XX:SharedArchiveFile=" + archive,
              "-XX:TieredStopAtLevel=1",
              "-jar",
              extracted.toString()));
    } else {
      out.println("no " + archive + " (built by mvn package): only the service jar is measured");
    }
    out.printf("startup: %s, %d rounds, table %s%n", jar, rounds, source);
    out.flush();

    Map<String, List<Double>> times = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      add(times, "java -version", time(List.of(java, "-version")));
      int n = 0;
      for (Map.Entry<String, List<String>> way : ways.entrySet()) {
        String replica = work.resolve("replica-" + round + "-" + n++).toString();
        List<String> replicate = new ArrayList<>(way.getValue());
        replicate.addAll(List.of("replicate", "--source", source, "--target", replica));
        add(times, way.getKey() + " | --help", time(with(way.getValue(), "--help")));
        add(times, way.getKey() + " | replicate, first", time(replicate));
        add(times, way.getKey() + " | replicate, up to date", time(replicate));
      }
      add(
          times,
          SERVE_SHIPPED,
          serveUntilHealthy(new ServiceJar(jar, List.of()), warehouse, work, round));
      if (Files.isRegularFile(cds.resolve("serve.jsa")) && Files.isRegularFile(extracted)) {
        add(
            times,
            SERVE_LAUNCHER,
            serveUntilHealthy(new ServiceJar(extracted, List.of()), warehouse, work, round));
      }
      out.printf("  round %d of %d done%n", round, rounds);
      out.flush();
    }

    double floor = median(times.get("java -version"));
    out.printf(
        "%-48s %10s %16s %10s%n", "median of " + rounds + " (wall)", "s", "min-max s", "/ java");
    times.forEach(
        (name, values) ->
            out.printf(
                "%-48s %10.2f %16s %10.1f%n",
                name,
                median(values),
                String.format("%.2f-%.2f", min(values), max(values)),
                median(values) / floor));
    String plain = "service jar (java -jar) | replicate, up to date";
    for (String way : ways.keySet()) {
      String key = way + " | replicate, up to date";
      if (!key.equals(plain)) {
        out.printf(
            "ratio %s / service jar, replicate up to date: %.2f%n",
            way, median(times.get(key)) / median(times.get(plain)));
      }
    }
    if (times.containsKey(SERVE_LAUNCHER)) {
      out.printf(
          "ratio serve as bin/replicator starts it / service jar: %.2f%n",
          median(times.get(SERVE_LAUNCHER)) / median(times.get(SERVE_SHIPPED)));
    }
    out.flush();
  }

  private static final String SERVE_SHIPPED = "service jar (java -jar) | serve, to health UP";

  /** As {@code bin/replicator} starts it: extracted, with {@code serve.jsa}. */
  private static final String SERVE_LAUNCHER = "extracted + serve.jsa | serve, to health UP";

  /**
   * Seconds from starting {@code serve}, with one rule replicating {@code warehouse}, until its
   * health answers {@code UP}; the process is then killed, as only its start is measured.
   */
  private static double serveUntilHealthy(ServiceJar jar, Path warehouse, Path work, int round)
      throws Exception {
    int port = LoopbackPort.free();
    Path log = work.resolve("serve-" + round + "-" + jar.jar().getParent().getFileName() + ".log");
    long started = System.nanoTime();
    Process process =
        jar.start(
            log,
            List.of(
                "serve",
                "--server.port=" + port,
                "--replicator.rules[0].name=startup",
                "--replicator.rules[0].source=" + warehouse,
                "--replicator.rules[0].targets[0].name=replica",
                "--replicator.rules[0].targets[0].prefix="
                    + work.resolve("serve-replica-" + round + "-" + port)));
    try {
      long deadline = started + TimeUnit.MINUTES.toNanos(2);
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("serve exited with " + process.exitValue() + ": " + log);
        }
        if (ServiceJar.isHealthy(port)) {
          return (System.nanoTime() - started) / 1e9;
        }
        Thread.sleep(20);
      }
      throw new IllegalStateException("serve was not healthy within 2 minutes: " + log);
    } finally {
      process.destroyForcibly().waitFor();
    }
  }

  private static String writeTable(Path location) throws IOException {
    HadoopTables tables = new HadoopTables(new Configuration());
    Table table =
        tables.create(
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"),
            location.toString());
    for (int commit = 0; commit < 3; commit++) {
      List<Record> rows = new ArrayList<>();
      for (long id = 0; id < 10; id++) {
        rows.add(GenericRecord.create(SCHEMA).copy(Map.of("id", commit * 10 + id, "name", "n")));
      }
      table.newAppend().appendFile(TableWrites.writeData(table, null, rows)).commit();
    }
    return location.toString();
  }

  private static List<String> with(List<String> command, String arg) {
    List<String> all = new ArrayList<>(command);
    all.add(arg);
    return all;
  }

  private static double time(List<String> command) throws Exception {
    long started = System.nanoTime();
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException("Cannot measure " + command + ": it failed");
    }
    return (System.nanoTime() - started) / 1e9;
  }

  private static void add(Map<String, List<Double>> times, String name, double seconds) {
    times.computeIfAbsent(name, k -> new ArrayList<>()).add(seconds);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
  }

  private static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }
}
