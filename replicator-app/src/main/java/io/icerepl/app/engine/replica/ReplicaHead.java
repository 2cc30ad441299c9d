package io.icerepl.app.engine.replica;

import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadata;
import java.util.Optional;

/**
 * The replica's current version, as readers resolve it.
 *
 * @param version the replica version number N of {@code v<N>.metadata.json}
 * @param file that file
 * @param metadata its content
 */
public record ReplicaHead(long version, String file, TableMetadata metadata) {

  public Optional<String> lastSourceFile() {
    return Optional.ofNullable(metadata.properties().get(ReplicaProperties.SOURCE_METADATA_FILE));
  }

  public Optional<Long> lastSourceUpdatedMs() {
    String value = metadata.properties().get(ReplicaProperties.SOURCE_LAST_UPDATED_MS);
    try {
      return value == null ? Optional.empty() : Optional.of(Long.parseLong(value));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
