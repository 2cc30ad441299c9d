package io.icerepl.app.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestCatalogSmokeTest {
  @TempDir Path dir;

  @Test
  void createsAndLoadsATable() throws Exception {
    try (LoopbackRestCatalog server =
            new LoopbackRestCatalog(
                dir.resolve("wh").toUri().toString(), "jdbc:sqlite:" + dir.resolve("c.db"));
        RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("t", Map.of("uri", server.uri()));
      catalog.createNamespace(Namespace.of("db"));
      catalog.createTable(
          TableIdentifier.of("db", "t"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
      assertThat(catalog.listTables(Namespace.of("db"))).hasSize(1);
    }
  }
}
