package io.icerepl.app.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;
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
}
