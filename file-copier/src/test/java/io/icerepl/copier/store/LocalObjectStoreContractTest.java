package io.icerepl.copier.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreContractTest extends ObjectStoreContract {
  private final LocalObjectStore store = new LocalObjectStore();
  @TempDir Path dir;

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected String path(String name) {
    return dir.resolve("table").resolve(name).toUri().toString();
  }
}
