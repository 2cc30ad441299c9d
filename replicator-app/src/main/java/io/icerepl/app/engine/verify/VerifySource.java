package io.icerepl.app.engine.verify;

import io.icerepl.copier.store.ObjectStore;
import java.util.Objects;

/**
 * The source a replica is compared with: where its files are and which metadata file is its current
 * version, however that was resolved (folder listing, version hint or catalog).
 *
 * @param store the source's store
 * @param location the source table location, for messages
 * @param metadataFile the source's current metadata file
 */
public record VerifySource(ObjectStore store, String location, String metadataFile) {
  public VerifySource {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(metadataFile, "metadataFile");
  }
}
