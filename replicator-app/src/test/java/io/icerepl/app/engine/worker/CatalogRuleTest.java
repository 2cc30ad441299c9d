package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogException;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.retention.RetentionOptions;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A catalog rule's tables are the ones its catalog lists in its namespaces, and each gets a lane
 * per target named by its catalog identifiers.
 */
class CatalogRuleTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path dir;

  @Test
  void discoveryListsTheCatalogsTablesInTheRulesNamespacesOnly() {
    Map<String, String> properties = new HashMap<>();
    properties.put("uri", "jdbc:sqlite:" + dir.resolve("c.db"));
    properties.put("warehouse", dir.resolve("wh").toUri().toString());
    properties.put("jdbc.schema-version", "V1");
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize("src", properties);
      for (Namespace ns : List.of(Namespace.of("sales"), Namespace.of("hr"))) {
        catalog.createNamespace(ns);
      }
      catalog.createTable(TableIdentifier.of("sales", "orders"), SCHEMA);
      catalog.createTable(TableIdentifier.of("sales", "refunds"), SCHEMA);
      catalog.createTable(TableIdentifier.of("hr", "people"), SCHEMA);
    }
    CatalogSpec spec = new CatalogSpec("src", withType(properties, "jdbc"));
    TableRule rule = rule(new RuleCatalog(spec, List.of("sales")));

    try (CatalogClients clients = new CatalogClients()) {
      List<String> tables = new TableDiscovery(SchemeStores.local(), clients).tables(rule);

      assertThat(tables).containsExactly("sales/orders", "sales/refunds");
      TableKey key = new TableRules(List.of(rule)).keys(rule, "sales/orders").get(0);
      assertThat(key.sourceTable()).contains("src:sales.orders");
      assertThat(key.replicaTable()).contains("dr:sales_dr.orders");
      assertThat(key.targetLocation()).isEqualTo("file:/replica/sales/orders");
    }
  }

  @Test
  void aCatalogThatCannotBeListedIsACatalogErrorNamingIt() {
    CatalogSpec spec =
        CatalogSpec.parse("name=gone,type=rest,uri=http://127.0.0.1:9,rest.client.max-retries=0");
    TableRule rule = rule(new RuleCatalog(spec, List.of()));

    try (CatalogClients clients = new CatalogClients()) {
      assertThatThrownBy(() -> new TableDiscovery(SchemeStores.local(), clients).tables(rule))
          .isInstanceOf(CatalogException.class)
          .hasMessageContaining("catalog gone (rest http://127.0.0.1:9)");
    }
  }

  @Test
  void eventsUnderACatalogTablesLocationFindItsKeys() {
    CatalogTableLocations locations = new CatalogTableLocations();
    TableKey key = new TableKey("r", "t", "sales/orders", "catalog:src/sales/orders", "file:/x");
    locations.record("s3://wh/sales/orders/", List.of(key));

    assertThat(locations.keysOf("s3://wh/sales/orders")).containsExactly(key);
    assertThat(locations.keysOf("s3://wh/sales/orders/data/x")).containsExactly(key);
    assertThat(locations.keysOf("s3://wh/sales/orders2")).isEmpty();
  }

  private static TableRule rule(RuleCatalog catalog) {
    return new TableRule(
        "sales",
        catalog.label(),
        List.of(
            new RuleTarget(
                "dr",
                "file:/replica",
                List.of(),
                Optional.of(CatalogSpec.parse("name=dr,type=jdbc,uri=jdbc:sqlite::memory:")),
                Optional.of("sales_dr"))),
        List.of(),
        RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false),
        Optional.empty(),
        Optional.of(catalog),
        Optional.empty());
  }

  private static Map<String, String> withType(Map<String, String> properties, String type) {
    Map<String, String> out = new HashMap<>(properties);
    out.put("type", type);
    return out;
  }
}
