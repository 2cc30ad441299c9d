package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page at {@code /}, served by a running service with one replicated table: it loads
 * without a token and says how to get in, and with the token shows the table, read in a real
 * headless browser (Chromium), which writes a screenshot to {@code target/status-page.png}. The
 * browser steps are skipped, saying so, where no Chromium is installed ({@code .ci/run} installs
 * one).
 */
class StatusPageTest {
  @TempDir static Path dir;
  private static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    Path warehouse = dir.resolve("warehouse");
    SourceTable orders = SourceTable.create(warehouse.resolve("ns/orders"), 2);
    orders.append("books", 3);
    service =
        RunningService.start(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "file:" + warehouse,
                "replicator.rules[0].targets[0].name", "dr",
                "replicator.rules[0].targets[0].prefix", "file:" + dir.resolve("replica"),
                "replicator.reconciliation-interval", "300ms",
                "replicator.groups[0].name", "lake-group",
                "replicator.groups[0].target", "dr",
                "replicator.groups[0].tables[0]", "ns/orders",
                "replicator.groups[0].tag-interval", "PT0.2S"));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (!service.http.get("/api/replications").body().contains("\"IN_SYNC\"")) {
      assertThat(Instant.now()).as("the table replicated").isBefore(deadline);
      Thread.sleep(200);
    }
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void theServiceSaysWhereItAnswersAndHowToGetIn() {
    assertThat(ReplicatorApplication.whereToLook(service.context))
        .containsExactly(
            "status page        http://localhost:" + service.http.port() + "/",
            "status API         http://localhost:" + service.http.port() + "/api/replications",
            "metrics            http://localhost:" + service.http.port() + "/actuator/prometheus",
            "access             send the API token: Authorization: Bearer <token>");
  }

  @Test
  void thePageLoadsWithoutATokenAndTheDataDoesNot() {
    HttpJson anonymous = service.http.withToken(null);
    HttpJson.Response page = anonymous.get("/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("Iceberg replicator", "replicator.api.token");
    assertThat(page.body()).doesNotContain("ns/orders");
    HttpJson.Response data = anonymous.get("/api/replications");
    assertThat(data.status()).isEqualTo(401);
    assertThat(data.body()).contains("Authorization: Bearer");
  }

  /**
   * The page and everything else the service answers say where a page may load from and send
   * nothing of its address on: a script injected into the page through a table name or an error
   * could not run, nor leave the service's origin.
   */
  @Test
  void everyAnswerCarriesAContentSecurityPolicyAndNoReferrer() throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    for (String path : List.of("/", "/status.js", "/status.css", "/api/replications")) {
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.http.port() + path))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode())
          .as("GET %s without a token", path)
          .isEqualTo(path.startsWith("/api/") ? 401 : 200);
      assertThat(response.headers().allValues("Content-Security-Policy"))
          .as("Content-Security-Policy of %s", path)
          .singleElement()
          .asString()
          .contains("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'")
          .doesNotContain("unsafe-inline", "unsafe-eval", "*");
      assertThat(response.headers().allValues("Referrer-Policy"))
          .as("Referrer-Policy of %s", path)
          .containsExactly("no-referrer");
    }
  }

  @Test
  void aBrowserWithTheTokenShowsTheTableAndWithoutItTheWayIn() throws Exception {
    Optional<String> chromium = chromium();
    Assumptions.assumeTrue(
        chromium.isPresent(), "no Chromium installed (apt-get install chromium): browser skipped");
    String url = "http://127.0.0.1:" + service.http.port() + "/";

    // the cut reads each table as of a second (the clock-skew allowance) before it: just after the
    // table's one commit the cut holds no snapshot of it yet, then always that one
    String atCut = "";
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (atCut.isEmpty()) {
      assertThat(Instant.now()).as("the group's cut holds the table's snapshot").isBefore(deadline);
      JsonNode table = service.http.get("/api/groups/lake-group").json().path("tables").get(0);
      atCut = table.path("snapshotId").isNumber() ? table.path("snapshotId").asText() : "";
      Thread.sleep(100);
    }
    String cutTag = "";
    while (cutTag.isEmpty()) {
      assertThat(Instant.now()).as("the group's cut is tagged").isBefore(deadline);
      cutTag = service.http.get("/api/groups/lake-group").json().path("cutTag").asText("");
      Thread.sleep(100);
    }
    Path console = dir.resolve("chromium-console.log");
    String dom =
        run(
            chromium.get(),
            console,
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            url + "#token=" + RunningService.TOKEN);
    assertThat(Files.readString(console, StandardCharsets.UTF_8))
        .as("the browser's console: nothing refused by the page's Content-Security-Policy")
        .doesNotContain("Content Security Policy")
        .doesNotContain("Refused to");
    assertThat(dom)
        .contains("data-table=\"ns/orders\"")
        .contains("IN_SYNC")
        .contains("1 replica(s)")
        .contains("data-group=\"lake-group\"")
        .as("the group's cut tag (it moves every 0.2 s: %s or a later one)", cutTag)
        .containsPattern("<td[^>]*>lake-group-\\d{8}T\\d{6}Z</td>")
        .as("the snapshot at the cut, to the last digit")
        .contains("ns/orders @ " + atCut)
        .as("the loss a consistent failover now would have, in seconds")
        .containsPattern(
            "<td class=\"num\" title=\"what a consistent failover now[^\"]*\">\\d+ (s|min)</td>");

    String anonymous = run(chromium.get(), "--dump-dom", url);
    assertThat(anonymous)
        .contains("id=\"login\" style=\"display: block;\"")
        .doesNotContain("ns/orders");

    Path screenshot = Path.of("target", "status-page.png").toAbsolutePath();
    Files.deleteIfExists(screenshot);
    run(
        chromium.get(),
        "--screenshot=" + screenshot,
        "--window-size=1280,720",
        url + "#token=" + RunningService.TOKEN);
    assertThat(screenshot).isRegularFile();
    assertThat(Files.size(screenshot)).isPositive();
  }

  private static String run(String chromium, String... args) throws Exception {
    return run(chromium, null, args);
  }

  /** Runs the browser; what it writes to stderr goes to {@code console}, unless null. */
  private static String run(String chromium, Path console, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(chromium);
    command.addAll(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--user-data-dir=" + dir.resolve("chromium-profile"),
            // lets the page's fetch and rendering finish before the DOM is taken
            "--virtual-time-budget=10000"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "chromium", ".out");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(
                console == null
                    ? ProcessBuilder.Redirect.DISCARD
                    : ProcessBuilder.Redirect.to(console.toFile()))
            .start();
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static Optional<String> chromium() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of("chromium", "chromium-browser", "google-chrome")
        .flatMap(name -> Stream.of(path.split(":")).map(d -> Path.of(d, name)))
        .filter(Files::isExecutable)
        .map(Path::toString)
        .findFirst();
  }
}
