package io.icerepl.app.engine.worker;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One replication lane: a source table and one of its replicas.
 *
 * @param rule the rule's name
 * @param target the target's name
 * @param table the table's path relative to the rule's source prefix (e.g. {@code ns/orders}),
 *     which is also its path under the target prefix
 * @param sourceLocation the source table location
 * @param targetLocation the replica table location
 * @param sourceTable the source table as {@code <catalog>:<namespace>.<name>} when its rule's
 *     source is a catalog; its {@code sourceLocation} then only names the lane, the table's
 *     location is the catalog's
 * @param replicaTable the replica as {@code <catalog>:<namespace>.<name>} when its target registers
 *     replicas in a catalog
 */
public record TableKey(
    String rule,
    String target,
    String table,
    String sourceLocation,
    String targetLocation,
    Optional<String> sourceTable,
    Optional<String> replicaTable) {
  /** Joins namespace levels. */
  public static final char NAMESPACE_SEPARATOR = '\u001F';

  public TableKey {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(sourceLocation, "sourceLocation");
    Objects.requireNonNull(targetLocation, "targetLocation");
    Objects.requireNonNull(sourceTable, "sourceTable");
    Objects.requireNonNull(replicaTable, "replicaTable");
  }

  /** A key of a table found by its folder, registered in no catalog. */
  public TableKey(
      String rule, String target, String table, String sourceLocation, String targetLocation) {
    this(rule, target, table, sourceLocation, targetLocation, Optional.empty(), Optional.empty());
  }

  /** The namespace's levels and the table's name: its identifier in a catalog. */
  public List<String> levels() {
    return List.of(table.split("/"));
  }

  /**
   * The namespace, its levels joined with the unit separator U+001F as in the Iceberg REST catalog
   * (empty for a table directly under the prefix). A '.' joins nothing: folder names may hold one,
   * and {@code a.b/t} and {@code a/b/t} are two tables.
   */
  public String namespace() {
    int slash = table.lastIndexOf('/');
    return slash < 0 ? "" : table.substring(0, slash).replace('/', NAMESPACE_SEPARATOR);
  }

  /** The table's own name, the last level of its relative path. */
  public String name() {
    return table.substring(table.lastIndexOf('/') + 1);
  }

  @Override
  public String toString() {
    return table + " -> " + target;
  }
}
