package io.icerepl.app.engine.worker;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;

/** Local files: {@code file:} URIs and absolute paths; refuses every other scheme. */
public final class LocalStoreFactory implements StoreFactory {
  private final LocalObjectStore store = new LocalObjectStore();

  @Override
  public ObjectStore sourceStore(String location) {
    return storeFor("source", location);
  }

  @Override
  public ObjectStore targetStore(String location) {
    return storeFor("target", location);
  }

  private ObjectStore storeFor(String role, String location) {
    if (location.startsWith("file:") || location.startsWith("/")) {
      return store;
    }
    int colon = location.indexOf(':');
    String scheme = colon < 0 ? "(none)" : location.substring(0, colon + 1);
    throw new IllegalArgumentException(
        "Cannot open " + role + " store for " + location + ": scheme " + scheme
            + " is not supported by the local store (only file: and absolute paths)");
  }
}
