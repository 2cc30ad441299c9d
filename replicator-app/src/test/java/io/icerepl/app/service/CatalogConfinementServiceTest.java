package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog rule's tables are confined: a catalog row pointing at another table's metadata, kept
 * outside the catalog's warehouse, fails that table alone and copies none of the other table's
 * files, while the catalog's own tables replicate.
 */
class CatalogConfinementServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @TempDir Path dir;
  private RunningService service;

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void aCatalogRowNamingATableOutsideTheWarehouseFailsAloneAndCopiesNothing() throws IOException {
    String warehouse = dir.resolve("warehouse").toUri().toString();
    String database = "jdbc:sqlite:" + dir.resolve("catalog.db");
    // a table outside the catalog's warehouse, whose files the rule must not copy
    SourceTable secret = SourceTable.create(dir.resolve("elsewhere/secret"), 2);
    secret.append("s", 3);
    String secretMetadata =
        ((BaseTable) secret.table).operations().current().metadataFileLocation();
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize("prod", Map.of("uri", database, "warehouse", warehouse));
      catalog.createNamespace(Namespace.of("sales"));
      Table orders = catalog.createTable(TableIdentifier.of("sales", "orders"), SourceTable.SCHEMA);
      SourceTable.of(orders, 1).append("a", 2);
      catalog.registerTable(TableIdentifier.of("sales", "intruder"), secretMetadata);
    }

    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "sales");
    properties.put(
        "replicator.rules[0].source-catalog",
        "name=prod,type=jdbc,uri=" + database + ",warehouse=" + warehouse);
    properties.put("replicator.rules[0].targets[0].name", "dr");
    properties.put(
        "replicator.rules[0].targets[0].prefix", dir.resolve("replica").toUri().toString());
    properties.put("replicator.reconciliation-interval", "PT1S");
    service = RunningService.start(properties);

    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              assertThat(status("orders").path("state").asText()).isEqualTo("IN_SYNC");
              JsonNode intruder = status("intruder");
              assertThat(intruder.path("state").asText())
                  .as(intruder.toString())
                  .isEqualTo("FAILED");
              assertThat(intruder.path("lastError").asText())
                  .contains(
                      "Cannot replicate table sales/intruder of catalog prod (jdbc "
                          + database
                          + "): the catalog reports its location "
                          + secret.location)
                  .contains("outside the catalog's warehouse [" + warehouse + "]")
                  .contains("nothing was copied");
            });
    assertThat(files(dir.resolve("replica/sales/intruder")))
        .as("nothing of the other table")
        .isZero();
    assertThat(files(dir.resolve("replica/sales/orders"))).isPositive();
  }

  private JsonNode status(String table) {
    return service.http.get("/api/replications/dr/sales/" + table).json();
  }

  private static long files(Path folder) throws IOException {
    if (!Files.exists(folder)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).count();
    }
  }
}
