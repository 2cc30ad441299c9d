package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.HasTableOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The service's clock runs a minute behind the writers' (the test-only clock offset): to it, every
 * commit the Iceberg library makes is stamped about a minute ahead, as a writer whose clock runs a
 * minute ahead would stamp it. A table outside any group (allowance one second) is reported: a WARN
 * once over the runs that replicate its creation and two commits, the gauge and its status; a
 * group's table whose clock-skew allowance is ten minutes is not.
 */
class WriterClockServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String ORDERS = "/api/replications/a/ns/orders";
  private static final String ITEMS = "/api/replications/a/ns/items";

  @Test
  void aWriterAheadOfTheAllowanceIsWarnedOnceAndShownInTheGaugeAndTheStatus(@TempDir Path dir)
      throws Exception {
    Path root = dir.toRealPath();
    Path warehouse = root.resolve("warehouse");
    // the group's table must be there when the service starts; orders is written once it runs
    SourceTable items = SourceTable.create(warehouse.resolve("ns/items"), 2);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger rootLogger = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    try (RunningService service =
        RunningService.start(
            Map.of(
                "replicator.test.clock-offset", "-PT1M",
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "file:" + warehouse,
                "replicator.rules[0].targets[0].name", "a",
                "replicator.rules[0].targets[0].prefix", "file:" + root.resolve("replica"),
                "replicator.reconciliation-interval", "300ms",
                "replicator.groups[0].name", "sales",
                "replicator.groups[0].target", "a",
                "replicator.groups[0].tables[0]", "ns/items",
                "replicator.groups[0].clock-skew", "PT10M"))) {
      // Spring's logging set-up replaced the appenders: attach after it
      logs.start();
      rootLogger.addAppender(logs);
      try {
        SourceTable orders = SourceTable.create(warehouse.resolve("ns/orders"), 2);
        orders.append("books", 2);
        items.append("books", 3);
        awaitReplicated(service, ORDERS, orders);
        awaitReplicated(service, ITEMS, items);

        JsonNode first = service.http.get(ORDERS).json();
        long firstSnapshot = orders.table.currentSnapshot().snapshotId();
        assertThat(first.path("writerClockAheadSeconds").asDouble()).isBetween(30.0, 61.0);
        assertThat(first.path("writerClockNote").asText())
            .contains("snapshot " + firstSnapshot)
            .contains("NTP");

        // a second commit, stamped ahead too, replicated by a later run: no second WARN
        orders.append("games", 1);
        awaitReplicated(service, ORDERS, orders);
        JsonNode second = service.http.get(ORDERS).json();
        assertThat(second.path("writerClockAheadSeconds").asDouble()).isBetween(30.0, 61.0);
        assertThat(second.path("writerClockNote").asText())
            .contains("snapshot " + orders.table.currentSnapshot().snapshotId());
        assertThat(
                logs.list.stream()
                    .filter(e -> e.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains("clock"))
                    .toList())
            .singleElement()
            .satisfies(
                line ->
                    assertThat(line).startsWith("ns/orders: ").contains("ahead").contains("NTP"));

        String metrics = service.http.get("/actuator/prometheus").body();
        assertThat(gauge(metrics, "ns/orders")).isBetween(30.0, 61.0);
        assertThat(gauge(metrics, "ns/items")).as("within its group's allowance").isZero();
        JsonNode inGroup = service.http.get(ITEMS).json();
        assertThat(inGroup.path("writerClockAheadSeconds").asDouble()).isZero();
        assertThat(inGroup.path("writerClockNote").isNull()).isTrue();

        Optional<String> chromium = HeadlessChromium.find();
        if (chromium.isPresent()) {
          String dom = HeadlessChromium.dom(chromium.get(), root, service.http.port());
          assertThat(row(dom, "ns/orders"))
              .contains("class=\"warning\"")
              .contains("runs ahead")
              .contains("NTP");
          assertThat(row(dom, "ns/items")).doesNotContain("class=\"warning\"");
        }
      } finally {
        rootLogger.detachAppender(logs);
      }
    }
  }

  private static void awaitReplicated(RunningService service, String path, SourceTable table) {
    String head = ((HasTableOperations) table.table).operations().current().metadataFileLocation();
    String name = head.substring(head.lastIndexOf('/') + 1);
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              JsonNode status = service.http.get(path).json();
              assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");
              assertThat(status.path("lastSourceMetadataFile").asText()).endsWith("/" + name);
            });
  }

  /** The status page's row of a table. */
  private static String row(String dom, String table) {
    int start = dom.indexOf("<tr data-table=\"" + table + "\"");
    assertThat(start).as("the page's row of %s in%n%s", table, dom).isNotNegative();
    return dom.substring(start, dom.indexOf("</tr>", start));
  }

  private static double gauge(String metrics, String table) {
    Matcher m =
        Pattern.compile(
                "(?m)^replicator_writer_clock_ahead_seconds\\{[^}]*table=\""
                    + Pattern.quote(table)
                    + "\"[^}]*} (\\S+)$")
            .matcher(metrics);
    assertThat(m.find()).as("the gauge of %s in%n%s", table, metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
