package io.icerepl.app.engine.worker;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the tables of catalog rules live, as their catalogs said at their last run: an S3 event for
 * a metadata file under one of them triggers that table, whose head is then asked of its catalog. A
 * table not run yet is found by the next reconciliation instead.
 */
public final class CatalogTableLocations {
  private final Map<String, List<TableKey>> byLocation = new ConcurrentHashMap<>();

  /** Records where the catalog keeps the table of {@code keys} (one per target). */
  public void record(String location, List<TableKey> keys) {
    byLocation.put(trim(location), List.copyOf(keys));
  }

  /** The keys of the catalog table at or enclosing {@code location}; empty when none is known. */
  public List<TableKey> keysOf(String location) {
    String path = trim(location);
    return byLocation.entrySet().stream()
        .filter(e -> path.equals(e.getKey()) || path.startsWith(e.getKey() + "/"))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(List.of());
  }

  private static String trim(String location) {
    String out = location;
    while (out.endsWith("/") && !out.endsWith("://")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }
}
