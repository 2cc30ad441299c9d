package io.icerepl.app.engine.catalog;

import io.icerepl.merge.merge.ReplicaProperties;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.ConcurrentModificationException;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.GetTableRequest;
import software.amazon.awssdk.services.glue.model.Table;
import software.amazon.awssdk.services.glue.model.TableInput;
import software.amazon.awssdk.services.glue.model.UpdateTableRequest;

/**
 * A Glue table's entry is its {@code metadata_location} parameter. It is moved with Glue's own
 * optimistic lock: {@code UpdateTable} with the {@code VersionId} the table was read at, after
 * checking the parameter names an older replica version. The table also gets {@code
 * replicator.read-only=true} as a parameter, where Glue's consoles and policies can see it.
 */
final class GlueRegistrar extends EntryRegistrar {
  private static final String METADATA_LOCATION = "metadata_location";
  private static final String PREVIOUS_METADATA_LOCATION = "previous_metadata_location";
  private static final String CATALOG_ID = "glue.id";

  private final GlueClient glue;

  GlueRegistrar(
      CatalogSpec spec,
      Catalog catalog,
      TableIdentifier identifier,
      ReplicaVersions versions,
      GlueClient glue) {
    super(spec, catalog, identifier, versions);
    this.glue = glue;
  }

  @Override
  Optional<Registration> attempt(String replicaLocation, String metadataFile) {
    return moveTo(metadataFile, true, entry -> isBehind(replicaLocation, metadataFile, entry));
  }

  /** The entry moves to the promoted version and loses the read-only parameter in one update. */
  @Override
  Optional<Registration> promoteAttempt(String replicaLocation, String promotedFile) {
    return moveTo(
        promotedFile, false, entry -> isBeforePromotion(replicaLocation, promotedFile, entry));
  }

  /**
   * Registers {@code file}, or moves the entry to it when {@code behind} the entry's file; either
   * way the entry ends marked read-only or not, as {@code readOnly} says.
   */
  private Optional<Registration> moveTo(String file, boolean readOnly, Predicate<String> behind) {
    Optional<Table> table = table();
    if (table.isEmpty()) {
      Optional<Registration> registered = registerNew(file);
      if (readOnly) {
        // Iceberg's Glue client registers without the mark; a lost race here is marked next run
        registered.ifPresent(r -> table().ifPresent(t -> update(t, file, true)));
      }
      return registered;
    }
    Map<String, String> parameters = table.get().parameters();
    String entryFile = parameters.get(METADATA_LOCATION);
    if (entryFile == null) {
      throw diverged(file, "no metadata file", "a Glue table that is no Iceberg table");
    }
    if (!behind.test(entryFile)) {
      boolean marked =
          readOnly
              ? "true".equals(parameters.get(ReplicaProperties.READ_ONLY))
              : !parameters.containsKey(ReplicaProperties.READ_ONLY);
      if (!marked) {
        update(table.get(), entryFile, readOnly);
      }
      return Optional.of(Registration.UNCHANGED);
    }
    return update(table.get(), file, readOnly)
        ? Optional.of(Registration.ADVANCED)
        : Optional.empty();
  }

  /** {@inheritDoc} The table's {@code metadata_location} parameter. */
  @Override
  public Optional<String> entryFile() {
    return table().map(t -> t.parameters().get(METADATA_LOCATION));
  }

  private Optional<Table> table() {
    try {
      return Optional.of(
          glue.getTable(
                  GetTableRequest.builder()
                      .catalogId(spec.properties().get(CATALOG_ID))
                      .databaseName(database())
                      .name(identifier.name())
                      .build())
              .table());
    } catch (EntityNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * Points the table at {@code metadataFile} and marks it read-only, or removes the mark, if it is
   * still at the version it was read at.
   */
  private boolean update(Table table, String metadataFile, boolean readOnly) {
    Map<String, String> parameters = new HashMap<>(table.parameters());
    String previous = parameters.get(METADATA_LOCATION);
    if (!metadataFile.equals(previous)) {
      parameters.put(PREVIOUS_METADATA_LOCATION, previous);
    }
    parameters.put(METADATA_LOCATION, metadataFile);
    if (readOnly) {
      parameters.put(ReplicaProperties.READ_ONLY, "true");
    } else {
      parameters.remove(ReplicaProperties.READ_ONLY);
    }
    TableInput input =
        TableInput.builder()
            .name(table.name())
            .description(table.description())
            .owner(table.owner())
            .tableType(table.tableType())
            .retention(table.retention())
            .storageDescriptor(table.storageDescriptor())
            .partitionKeys(table.partitionKeys())
            .parameters(parameters)
            .build();
    try {
      glue.updateTable(
          UpdateTableRequest.builder()
              .catalogId(spec.properties().get(CATALOG_ID))
              .databaseName(database())
              .tableInput(input)
              .versionId(table.versionId())
              .build());
      return true;
    } catch (ConcurrentModificationException e) {
      return false;
    }
  }

  private String database() {
    return identifier.namespace().level(0);
  }
}
