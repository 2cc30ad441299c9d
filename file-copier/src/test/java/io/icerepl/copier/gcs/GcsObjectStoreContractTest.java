package io.icerepl.copier.gcs;

import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStoreContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The object-store contract against LocalStorageHelper's in-process fake, a fresh one per test. The
 * fake does not check generation preconditions, which real GCS checks on the server, so it runs
 * behind {@link PreconditionEnforcingStorage}; no GCS emulator is reachable here.
 */
class GcsObjectStoreContractTest extends ObjectStoreContract {
  private GcsObjectStore store;

  @BeforeEach
  void newFake() {
    store =
        new GcsObjectStore(
            PreconditionEnforcingStorage.around(LocalStorageHelper.getOptions().getService()));
  }

  @AfterEach
  void closeStore() throws Exception {
    store.close();
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected String path(String name) {
    return "gs://contract/warehouse/ns/t/" + name;
  }
}
