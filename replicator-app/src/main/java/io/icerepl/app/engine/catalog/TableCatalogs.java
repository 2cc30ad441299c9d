package io.icerepl.app.engine.catalog;

import io.icerepl.app.engine.head.SourceHeadResolver;
import java.util.Optional;

/**
 * The catalogs one table's replication goes through: where its source head is read, and where its
 * replica is registered. Empty: the source head comes from the table's folder, and the replica is
 * registered nowhere.
 */
public record TableCatalogs(
    Optional<SourceHeadResolver> sourceHead, Optional<ReplicaRegistrar> registrar) {

  public static final TableCatalogs NONE = new TableCatalogs(Optional.empty(), Optional.empty());
}
