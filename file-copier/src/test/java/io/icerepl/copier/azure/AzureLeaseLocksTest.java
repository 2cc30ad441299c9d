package io.icerepl.copier.azure;

import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.LeaseLocksTest;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedAzurite;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The store-agnostic leases over the Azure store's readVersioned, replaceIf and deleteIf, on
 * Azurite: what the store's lock will rest on once it takes its locks from {@link LeaseLocks}. The
 * lease object lies under the lock prefix at the root of the table's container.
 */
class AzureLeaseLocksTest extends LeaseLocksTest {
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
    container = "leases-" + CONTAINERS.incrementAndGet();
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
  protected String table(String name) {
    return "abfss://" + container + "@devstoreaccount1.dfs.core.windows.net/warehouse/db/" + name;
  }

  @Override
  protected LeaseLocks.LeasePath leasePath() {
    return AzureObjectStore::leaseObject;
  }
}
