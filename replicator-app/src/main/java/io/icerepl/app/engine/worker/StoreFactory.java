package io.icerepl.app.engine.worker;

import io.icerepl.copier.store.ObjectStore;

/**
 * Opens the store that holds a location. The default serves local files; another implementation
 * (e.g. S3) replaces it by being declared as a bean.
 */
public interface StoreFactory {

  /**
   * @throws IllegalArgumentException when no store serves the location's scheme
   */
  ObjectStore sourceStore(String location);

  /**
   * @throws IllegalArgumentException when no store serves the location's scheme
   */
  ObjectStore targetStore(String location);
}
