package io.icerepl.copier.azure;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStoreContract;
import io.icerepl.localstack.EmbeddedAzurite;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The object-store contract against Azurite, which checks If-Match and If-None-Match with the write
 * as Azure does. Skipped, saying why, where Azurite is not installed.
 */
class AzureObjectStoreContractTest extends ObjectStoreContract {
  private static final AtomicInteger CONTAINERS = new AtomicInteger();
  private static EmbeddedAzurite azurite;
  private String container;
  private AzureObjectStore store;

  @BeforeAll
  static void startAzurite() {
    Assumptions.assumeTrue(
        EmbeddedAzurite.available(),
        "Azurite is not installed (.ci/run installs it with npm into local-stack/azurite)");
    azurite = EmbeddedAzurite.start();
  }

  @AfterAll
  static void stopAzurite() {
    if (azurite != null) {
      azurite.close();
    }
  }

  @BeforeEach
  void newContainer() {
    container = "contract-" + CONTAINERS.incrementAndGet();
    azurite.createContainer(container);
    store =
        new AzureObjectStore(
            AzureAccess.sharedKey(azurite.accountName(), azurite.accountKey())
                .withEndpoint(azurite.endpoint()));
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected String path(String name) {
    return "abfss://"
        + container
        + "@"
        + EmbeddedAzurite.ACCOUNT_NAME
        + ".dfs.core.windows.net/warehouse/ns/t/"
        + name;
  }
}
