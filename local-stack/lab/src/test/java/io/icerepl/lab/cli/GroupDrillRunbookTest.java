package io.icerepl.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.lab.local.DemoWriter;
import io.icerepl.lab.local.VersionHint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Follows the failover runbook's group drill on {@code serve --local} as an operator would: the
 * commands are the fenced blocks under "Group drill commands" of docs/failover-runbook.md, run in
 * order with the {@code export} lines {@code serve --local} printed (the replicator's and the lab's
 * command lines in-process, {@code curl} with an HTTP client). Each step is then checked with the
 * Iceberg library on the tables themselves.
 */
class GroupDrillRunbookTest {
  private static final Pattern SECTION =
      Pattern.compile("(?s)### Group drill commands\\n(.*?)(?=\\n## )");
  private static final Pattern FENCE = Pattern.compile("(?s)```\\n(.*?)```");
  private static final String REPLICAS = "s3://replica/warehouse/demo/";
  private static final String SOURCES = "s3://source/warehouse/demo/";

  private final Map<String, String> variables = new LinkedHashMap<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private int port;
  private long promotedBatch = -1;
  private S3FileIO io;

  /** What one command printed, and its exit code (the HTTP status for curl: 0 when 2xx). */
  private record Ran(List<String> words, int exit, String out, String err) {}

  @Test
  void theRunbooksGroupDrillPromotesBothTablesAtOneBatchFailsBackAndSwitchesBack()
      throws Exception {
    drill(
        () -> {
          // switched back: the writer takes up the originals, primaries again, and commits on
          awaitBatchAfterThePromotion(SOURCES + "orders", "the writer commits to the originals");
          assertThat(table(SOURCES + "orders").properties())
              .doesNotContainKey("replicator.read-only");
          // and the replicas follow them, read-only replicas again
          awaitBatchAfterThePromotion(REPLICAS + "orders", "replication resumed");
          assertThat(table(REPLICAS + "orders").properties())
              .containsEntry("replicator.read-only", "true");
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (!state("demo/orders").equals("IN_SYNC")) {
            assertThat(System.nanoTime()).as("IN_SYNC within 30 s").isLessThan(deadline);
            Thread.sleep(500);
          }
        });
  }

  /** What the test checks once the runbook's commands ran, with the service still up. */
  private interface Then {
    void check() throws Exception;
  }

  private void awaitBatchAfterThePromotion(String location, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (batch(table(location).currentSnapshot()) <= promotedBatch) {
      assertThat(System.nanoTime()).as(what + " within 60 s").isLessThan(deadline);
      Thread.sleep(500);
    }
  }

  private void drill(Then then) throws Exception {
    List<String> blocks = runbookBlocks();
    assertThat(blocks).hasSizeGreaterThanOrEqualTo(5);

    ServeCommand serve = new ServeCommand();
    CompletableFuture<ConfigurableApplicationContext> started = new CompletableFuture<>();
    serve.started = started::complete;
    StringWriter serveOut = new StringWriter();
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Thread serving =
        new Thread(
            () -> {
              StringWriter err = new StringWriter();
              int exit =
                  ReplicatorCli.execute(
                      serve,
                      new PrintWriter(serveOut, true),
                      new PrintWriter(err, true),
                      "--local",
                      "--demo-interval",
                      "2s",
                      "--server.port=" + port);
              started.completeExceptionally(
                  new AssertionError("serve exited " + exit + ": " + err));
            },
            "serve-local");
    serving.start();
    ConfigurableApplicationContext context = started.get(90, TimeUnit.SECONDS);
    try {
      // what the operator pastes: the export lines serve --local printed
      List<String> exports =
          serveOut.toString().lines().filter(l -> l.trim().startsWith("export ")).toList();
      assertThat(exports).hasSize(3);
      exports.forEach(this::run);
      assertThat(variables)
          .containsKeys("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "TOKEN");
      io = fileIO(variables.get("S3_OPTIONS"));
      credentials(true);

      List<Ran> ran = new ArrayList<>();
      for (String block : blocks) {
        for (String command : commands(block)) {
          Ran one = run(command);
          if (one != null) {
            ran.add(one);
            afterwards(one);
          }
        }
      }
      assertThat(ran).as("the drill's commands").hasSize(7);

      then.check();
    } finally {
      credentials(false);
      if (io != null) {
        io.close();
      }
      context.close();
      serving.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(serving.isAlive()).isFalse();
  }

  /** The checks after each command of the drill, made on the tables with the Iceberg library. */
  private void afterwards(Ran ran) throws Exception {
    List<String> words = ran.words();
    assertThat(ran.exit()).as(words + "\n" + ran.out() + ran.err()).isZero();
    if (words.contains("--dry-run")) {
      assertThat(ran.out()).contains("nothing written", "demo-");
      assertThat(table(REPLICAS + "orders").properties())
          .as("a dry run promotes nothing")
          .containsEntry("replicator.read-only", "true");
    } else if (words.contains("check-orders")) {
      assertThat(ran.out()).containsPattern("at one batch\\s+yes");
    } else if (words.contains("promote") && words.contains(REPLICAS + "orders")) {
      assertThat(ran.out()).contains("demo-");
      assertAtOneBatch(REPLICAS, cutTag(ran.out()));
      assertThat(table(REPLICAS + "orders").properties()).doesNotContainKey("replicator.read-only");
      promotedBatch = batch(table(REPLICAS + "orders").currentSnapshot());
    } else if (words.contains("failback")) {
      for (String name : List.of("orders", "order_items")) {
        assertThat(rows(table(SOURCES + name)))
            .as("the original " + name + " holds what its promoted table holds")
            .isEqualTo(rows(table(REPLICAS + name)));
        assertThat(table(SOURCES + name).properties())
            .containsEntry("replicator.read-only", "true");
      }
    } else if (words.contains("promote") && words.contains(SOURCES + "orders")) {
      // the writer takes up the originals once both are promoted: read them at the cut
      assertAtOneBatch(SOURCES, cutTag(ran.out()));
      assertThat(table(SOURCES + "orders").properties()).containsEntry("replicator.epoch", "2");
    }
  }

  private static String cutTag(String promoteOutput) {
    Matcher tag = Pattern.compile("demo-\\d{8}T\\d{6}Z").matcher(promoteOutput);
    assertThat(tag.find()).as(promoteOutput).isTrue();
    return tag.group();
  }

  /**
   * Both tables at the cut tag as at their main: every order with its items, no item without its
   * order, both at one batch.
   */
  private void assertAtOneBatch(String folder, String cutTag) {
    Table orders = table(folder + "orders");
    Table items = table(folder + "order_items");
    Snapshot orderSnapshot = orders.snapshot(cutTag);
    Snapshot itemSnapshot = items.snapshot(cutTag);
    if (folder.equals(REPLICAS)) {
      // promoted at the cut, and written by nobody since (the demo writer pauses)
      assertThat(orderSnapshot).as(folder + "orders").isEqualTo(orders.currentSnapshot());
      assertThat(itemSnapshot).as(folder + "order_items").isEqualTo(items.currentSnapshot());
    }
    Map<Long, Integer> itemsPerOrder = new TreeMap<>();
    for (Record item : rows(items, itemSnapshot)) {
      itemsPerOrder.merge((Long) item.getField("order_id"), 1, Integer::sum);
    }
    Map<Long, Integer> expected = new TreeMap<>();
    for (Record order : rows(orders, orderSnapshot)) {
      expected.put((Long) order.getField("id"), DemoWriter.ITEMS_PER_ORDER);
    }
    assertThat(expected).as(folder + ": orders written").hasSizeGreaterThanOrEqualTo(3);
    assertThat(itemsPerOrder).as(folder + ": items per order").isEqualTo(expected);
    assertThat(batch(itemSnapshot))
        .as(folder + ": both tables at one batch")
        .isEqualTo(batch(orderSnapshot));
  }

  private static long batch(Snapshot snapshot) {
    return Long.parseLong(snapshot.summary().get(DemoWriter.BATCH));
  }

  private Table table(String location) {
    String file = VersionHint.headFile(io, location).orElseThrow();
    return new BaseTable(new StaticTableOperations(file, io), location);
  }

  private static List<Record> rows(Table table) {
    return rows(table, table.currentSnapshot());
  }

  private static List<Record> rows(Table table, Snapshot snapshot) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()) {
      records.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(java.util.Comparator.comparing(Record::toString));
    return rows;
  }

  private String state(String table) throws Exception {
    return new ObjectMapper()
        .readTree(get("/api/replications/replica/" + table).body())
        .path("state")
        .asText();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The fenced blocks under "Group drill commands", as the runbook has them. */
  private static List<String> runbookBlocks() throws IOException {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.exists(dir.resolve("docs/failover-runbook.md"))) {
      dir = dir.getParent();
    }
    String runbook = Files.readString(dir.resolve("docs/failover-runbook.md"));
    Matcher section = SECTION.matcher(runbook);
    assertThat(section.find()).as("the runbook's group drill section").isTrue();
    Matcher fence = FENCE.matcher(section.group(1));
    List<String> blocks = new ArrayList<>();
    while (fence.find()) {
      blocks.add(fence.group(1));
    }
    return blocks;
  }

  /** A block's commands: continued lines joined, comments and blank lines left out. */
  private static List<String> commands(String block) {
    List<String> commands = new ArrayList<>();
    StringBuilder command = new StringBuilder();
    for (String line : block.lines().toList()) {
      if (command.isEmpty() && (line.isBlank() || line.trim().startsWith("#"))) {
        continue;
      }
      if (line.endsWith("\\")) {
        command.append(line, 0, line.length() - 1).append(' ');
      } else {
        commands.add(command.append(line).toString().trim());
        command.setLength(0);
      }
    }
    return commands;
  }

  /**
   * Runs one line as a POSIX shell would for what the runbook uses: {@code NAME=value} and {@code
   * export} set variables (null returned), {@code $NAME} is expanded (split into words outside
   * double quotes), {@code java -jar} runs the replicator's or the lab's command line in-process,
   * and {@code curl} is an HTTP request to the service. A command that met the service's lease on a
   * table ("Cannot lock table"), or a promote just after the start whose cut precedes a table's
   * first commit, is run again, as the runbook says.
   */
  private Ran run(String line) {
    List<String> words = words(line.trim());
    if (words.get(0).equals("export")) {
      words.subList(1, words.size()).forEach(this::assign);
      return null;
    }
    if (words.size() == 1 && words.get(0).matches("[A-Z_]+=.*")) {
      assign(words.get(0));
      return null;
    }
    for (int attempt = 1; ; attempt++) {
      Ran ran = execute(words);
      boolean again =
          ran.err().contains("Cannot lock table")
              || ran.err().contains("had no snapshot at the cut");
      if (ran.exit() == 0 || !again || attempt == 5) {
        return ran;
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ran;
      }
    }
  }

  private void assign(String word) {
    int equals = word.indexOf('=');
    variables.put(word.substring(0, equals), word.substring(equals + 1));
  }

  private Ran execute(List<String> words) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] args = words.subList(Math.min(3, words.size()), words.size()).toArray(String[]::new);
    int exit;
    if (words.get(0).equals("java") && words.get(2).endsWith("/replicator-app.jar")) {
      exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    } else if (words.get(0).equals("java") && words.get(2).endsWith("/replicator-lab.jar")) {
      exit = LabCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    } else if (words.get(0).equals("curl")) {
      return curl(words);
    } else {
      throw new AssertionError(
          "The runbook's drill runs a command the test does not know: " + words);
    }
    return new Ran(words, exit, out.toString(), err.toString());
  }

  /**
   * {@code curl [-s] [-X method] [-H header] url}; the group's status is read until it names a cut
   * tag, as an operator deciding on a failover would wait for one.
   */
  private Ran curl(List<String> words) {
    String method = "GET";
    Map<String, String> headers = new HashMap<>();
    String url = null;
    for (int i = 1; i < words.size(); i++) {
      switch (words.get(i)) {
        case "-s" -> {}
        case "-X" -> method = words.get(++i);
        case "-H" -> {
          String[] header = words.get(++i).split(":\\s*", 2);
          headers.put(header[0], header[1]);
        }
        default -> url = words.get(i);
      }
    }
    url = url.replace("localhost:8080", "localhost:" + port);
    URI uri = URI.create(url.startsWith("http") ? url : "http://" + url);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try {
      while (true) {
        HttpRequest.Builder request =
            HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        HttpResponse<String> response =
            http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        boolean ok = response.statusCode() / 100 == 2;
        if (ok && uri.getPath().startsWith("/api/groups/") && !hasCutTag(response.body())) {
          assertThat(System.nanoTime()).as("a cut within 60 s").isLessThan(deadline);
          Thread.sleep(500);
          continue;
        }
        return new Ran(words, ok ? 0 : response.statusCode(), response.body(), "");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Whether the group has a cut its replicas prove (no cut tag needed) at which every table has a
   * snapshot: just after the start, the cut precedes the tables' first commits.
   */
  private static boolean hasCutTag(String body) throws IOException {
    JsonNode group = new ObjectMapper().readTree(body);
    assertThat(group.has("cut") && group.has("lossWindowSeconds") && group.has("heldBackBy"))
        .as(body)
        .isTrue();
    boolean everyTable = group.path("tables").size() > 0;
    for (JsonNode table : group.path("tables")) {
      everyTable &= table.path("snapshotId").isNumber();
    }
    return group.path("cut").isTextual() && everyTable;
  }

  /** Words as the shell splits them: double quotes group, {@code $NAME} expanded. */
  private List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '"') {
        quoted = !quoted;
        word = word == null ? new StringBuilder() : word;
      } else if (c == '$') {
        int end = i + 1;
        while (end < line.length() && line.substring(end, end + 1).matches("[A-Za-z0-9_]")) {
          end++;
        }
        String value = variables.getOrDefault(line.substring(i + 1, end), "");
        i = end - 1;
        if (quoted) {
          word = word == null ? new StringBuilder() : word;
          word.append(value);
        } else {
          // unquoted: split into words, the first joining the word under way
          String[] parts = value.trim().split("\\s+");
          for (int p = 0; p < parts.length; p++) {
            if (parts[p].isEmpty()) {
              continue;
            }
            if (p > 0 && word != null) {
              words.add(word.toString());
              word = null;
            }
            word = word == null ? new StringBuilder() : word;
            word.append(parts[p]);
          }
        }
      } else if (Character.isWhitespace(c) && !quoted) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  /** An S3FileIO on the endpoint {@code S3_OPTIONS} names, with the embedded credentials. */
  private S3FileIO fileIO(String s3Options) {
    List<String> options = List.of(s3Options.split("\\s+"));
    String endpoint = options.get(options.indexOf("--endpoint") + 1);
    S3FileIO fileIO = new S3FileIO();
    fileIO.initialize(
        Map.of(
            "s3.endpoint", endpoint,
            "s3.path-style-access", "true",
            "client.region", variables.get("AWS_REGION"),
            "s3.access-key-id", variables.get("AWS_ACCESS_KEY_ID"),
            "s3.secret-access-key", variables.get("AWS_SECRET_ACCESS_KEY")));
    return fileIO;
  }

  /**
   * The exported credentials where the default chain reads them in this process: its system
   * properties stand for the environment a shell would pass to the command.
   */
  private void credentials(boolean set) {
    Map<String, String> properties =
        Map.of(
            "aws.accessKeyId", "AWS_ACCESS_KEY_ID",
            "aws.secretAccessKey", "AWS_SECRET_ACCESS_KEY",
            "aws.region", "AWS_REGION");
    properties.forEach(
        (property, variable) -> {
          if (set) {
            System.setProperty(property, variables.get(variable));
          } else {
            System.clearProperty(property);
          }
        });
  }
}
