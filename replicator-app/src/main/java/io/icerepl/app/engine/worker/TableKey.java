package io.icerepl.app.engine.worker;

import java.util.Objects;

/**
 * One replication lane: a source table and one of its replicas.
 *
 * @param rule the rule's name
 * @param target the target's name
 * @param table the table's path relative to the rule's source prefix (e.g. {@code ns/orders}),
 *     which is also its path under the target prefix
 * @param sourceLocation the source table location
 * @param targetLocation the replica table location
 */
public record TableKey(
    String rule, String target, String table, String sourceLocation, String targetLocation) {
  /** Joins namespace levels. */
  public static final char NAMESPACE_SEPARATOR = '\u001F';

  public TableKey {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(sourceLocation, "sourceLocation");
    Objects.requireNonNull(targetLocation, "targetLocation");
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
