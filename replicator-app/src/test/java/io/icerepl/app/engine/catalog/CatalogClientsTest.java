package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;

class CatalogClientsTest {
  private static final CatalogSpec GLUE =
      new CatalogSpec(
          "prod",
          Map.of(
              "type", "glue",
              "client.region", "eu-west-1",
              "glue.endpoint", "http://127.0.0.1:9"));

  @Test
  void everyRunOfACatalogSharesOneGlueClientUntilTheClientsAreClosed() {
    GlueClient first;
    try (CatalogClients clients = new CatalogClients()) {
      first = clients.glue(GLUE);
      assertThat(clients.glue(GLUE)).isSameAs(first);
      assertThat(clients.glue(new CatalogSpec("other", GLUE.properties()))).isNotSameAs(first);
    }
    try (CatalogClients clients = new CatalogClients()) {
      assertThat(clients.glue(GLUE)).isNotSameAs(first);
    }
  }

  @Test
  void aCatalogReadFromIsNeverCreatedWhenItsSqliteFileIsMissing(@TempDir Path dir) {
    Path missing = dir.resolve("missing.db");
    try (CatalogClients clients = new CatalogClients()) {
      for (String uri :
          new String[] {
            "jdbc:sqlite:" + missing, "jdbc:sqlite:file:" + missing + "?cache=shared",
          }) {
        CatalogSpec spec = new CatalogSpec("src", Map.of("type", "jdbc", "uri", uri));
        assertThatThrownBy(() -> clients.get(spec))
            .isInstanceOf(CatalogException.class)
            .hasMessage(
                "Cannot open "
                    + spec.describe()
                    + ": its SQLite file "
                    + missing
                    + " does not exist (the replicator creates a catalog file only to register"
                    + " replicas in)");
      }
      // PyIceberg's form of the same catalog
      CatalogSpec sql =
          new CatalogSpec("src", Map.of("type", "sql", "uri", "sqlite:///" + missing));
      assertThatThrownBy(() -> clients.get(sql)).hasMessageContaining("SQLite file " + missing);
    }
    assertThat(missing).doesNotExist();
  }

  @Test
  void theCatalogReplicasAreRegisteredInIsCreatedAndThenOpensAsAnExistingOne(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("dr.db");
    CatalogSpec spec =
        new CatalogSpec(
            "dr",
            Map.of(
                "type", "jdbc", "uri", "jdbc:sqlite:" + file, "warehouse", dir.toUri().toString()));
    try (CatalogClients clients = new CatalogClients()) {
      clients.registering(spec);
      assertThat(file).exists();
    }
    try (CatalogClients clients = new CatalogClients()) {
      assertThat(
              ((org.apache.iceberg.catalog.SupportsNamespaces) clients.get(spec))
                  .listNamespaces(Namespace.empty()))
          .isEmpty();
    }
    assertThat(Files.size(file)).isPositive();
  }

  @Test
  void anInMemorySqliteCatalogHasNoFileToMiss(@TempDir Path dir) {
    try (CatalogClients clients = new CatalogClients()) {
      for (String uri :
          new String[] {"jdbc:sqlite::memory:", "jdbc:sqlite:file:mem1?mode=memory&cache=shared"}) {
        assertThat(
                clients.get(
                    new CatalogSpec(
                        "m",
                        Map.of("type", "jdbc", "uri", uri, "warehouse", dir.toUri().toString()))))
            .isNotNull();
      }
    }
  }
}
