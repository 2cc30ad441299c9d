package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogException;
import io.icerepl.app.engine.head.MetadataListing;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.path.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Finds the tables under a rule's source prefix: folders, at most {@value #MAX_DEPTH} levels down,
 * whose {@code metadata/} folder holds a metadata file. A table's own folders are not searched. A
 * catalog rule's tables are the ones its catalog lists in the rule's namespaces.
 */
public final class TableDiscovery {
  static final int MAX_DEPTH = 4;

  private final StoreFactory stores;
  private final CatalogClients catalogs;

  /** Per rule, the paths its last discovery found to be tables: only those can be deferred. */
  private final Map<String, Set<String>> known = new ConcurrentHashMap<>();

  public TableDiscovery(StoreFactory stores, CatalogClients catalogs) {
    this.stores = stores;
    this.catalogs = catalogs;
  }

  /**
   * A table found under a rule's source.
   *
   * @param path relative to the rule's source (e.g. {@code ns/orders})
   * @param listing what listing its metadata folder showed; empty for a catalog's table, whose head
   *     is its catalog's, and for a table whose check was deferred
   * @param deferred a table found by an earlier discovery whose folder was still there and whose
   *     metadata folder was not listed this time: it has no check due
   */
  public record DiscoveredTable(String path, Optional<MetadataListing> listing, boolean deferred) {}

  /**
   * Relative paths (e.g. {@code ns/orders}) of the tables under the rule's source prefix, sorted.
   */
  public List<String> tables(TableRule rule) {
    return discover(rule).stream().map(DiscoveredTable::path).toList();
  }

  /**
   * The tables under the rule's source, sorted by path, each with the listing of its metadata
   * folder that found it: one listing per table tells whether its head may have changed.
   */
  public List<DiscoveredTable> discover(TableRule rule) {
    return discover(rule, path -> false);
  }

  /**
   * The tables under the rule's source, as {@link #discover(TableRule)}, but for the tables an
   * earlier discovery found whose check is not due ({@code deferred}): their folder is still listed
   * under its parent, and their metadata folder not, so an idle table costs no listing of its own.
   */
  public List<DiscoveredTable> discover(TableRule rule, Predicate<String> deferred) {
    if (rule.catalog().isPresent()) {
      return catalogTables(rule.catalog().get()).stream()
          .map(path -> new DiscoveredTable(path, Optional.empty(), false))
          .toList();
    }
    ObjectStore store = stores.sourceStore(rule.source());
    Set<String> tables = known.computeIfAbsent(rule.name(), name -> ConcurrentHashMap.newKeySet());
    Predicate<String> skip = path -> tables.contains(path) && deferred.test(path);
    List<DiscoveredTable> found = new ArrayList<>();
    try {
      walk(store, rule.source(), "", 1, skip, found);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list tables under " + rule.source() + ": " + IoErrors.describe(e), e);
    }
    found.sort(Comparator.comparing(DiscoveredTable::path));
    // a set, not a list: retainAll asks it once per known table
    Set<String> paths = found.stream().map(DiscoveredTable::path).collect(Collectors.toSet());
    tables.retainAll(paths);
    tables.addAll(paths);
    return found;
  }

  /**
   * The table a folder under the rule's source prefix belongs to: the outermost folder above it
   * that is a table, else the folder itself. A table's own folders hold no other table, so an event
   * under one (e.g. a metadata file in {@code <table>/data/x/metadata/}) is the table's.
   */
  public String enclosingTable(TableRule rule, String relativePath) {
    if (rule.catalog().isPresent()) {
      return relativePath;
    }
    ObjectStore store = stores.sourceStore(rule.source());
    String[] levels = relativePath.split("/");
    try {
      for (int depth = 1; depth < levels.length; depth++) {
        String path = String.join("/", Arrays.copyOf(levels, depth));
        if (isTable(store, TableLayout.join(rule.source(), path))) {
          return path;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list tables under " + rule.source() + ": " + IoErrors.describe(e), e);
    }
    return relativePath;
  }

  /**
   * Whether a source location holds a table: its {@code metadata/} folder holds a metadata file.
   *
   * @throws UncheckedIOException when it cannot be listed
   */
  public boolean holdsTable(String location) {
    try {
      return isTable(stores.sourceStore(location), location);
    } catch (IOException e) {
      throw new UncheckedIOException(
          IoErrors.cannot("list", TableLayout.metadataFolder(location), e), e);
    }
  }

  /**
   * The catalog's tables in the rule's namespaces, as relative paths (namespace levels and name
   * joined by {@code /}), sorted. Nested namespaces are listed where the catalog supports them.
   *
   * @throws CatalogException naming the catalog when it cannot be listed
   */
  private List<String> catalogTables(RuleCatalog rule) {
    Catalog catalog = catalogs.get(rule.spec());
    List<String> found = new ArrayList<>();
    try {
      for (Namespace namespace : namespaces(catalog, Namespace.empty())) {
        if (!rule.includes(namespace.toString())) {
          continue;
        }
        for (TableIdentifier table : catalog.listTables(namespace)) {
          List<String> levels = new ArrayList<>(List.of(table.namespace().levels()));
          levels.add(table.name());
          found.add(String.join("/", levels));
        }
      }
    } catch (RuntimeException e) {
      throw new CatalogException(
          "Cannot list the tables of " + rule.spec().describe() + ": " + e.getMessage(), e);
    }
    found.sort(null);
    return found;
  }

  private static List<Namespace> namespaces(Catalog catalog, Namespace parent) {
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return List.of(parent);
    }
    List<Namespace> all = new ArrayList<>();
    for (Namespace child : namespaces.listNamespaces(parent)) {
      all.add(child);
      if (child.levels().length < MAX_DEPTH) {
        all.addAll(namespaces(catalog, child).stream().filter(n -> !n.equals(child)).toList());
      }
    }
    return all;
  }

  private static void walk(
      ObjectStore store,
      String prefix,
      String relative,
      int depth,
      Predicate<String> skip,
      List<DiscoveredTable> found)
      throws IOException {
    String folder = relative.isEmpty() ? prefix : TableLayout.join(prefix, relative);
    for (String child : store.listFolders(folder)) {
      String name = child.endsWith("/") ? child.substring(0, child.length() - 1) : child;
      String path = relative.isEmpty() ? name : relative + "/" + name;
      if (skip.test(path)) {
        found.add(new DiscoveredTable(path, Optional.empty(), true));
        continue;
      }
      List<ObjectStore.Entry> metadata =
          store.listEntries(TableLayout.metadataFolder(TableLayout.join(prefix, path)));
      if (metadata.stream()
          .map(ObjectStore.Entry::name)
          .anyMatch(MetadataFileNames::isMetadataFile)) {
        found.add(new DiscoveredTable(path, Optional.of(MetadataListing.of(metadata)), false));
      } else if (depth < MAX_DEPTH) {
        walk(store, prefix, path, depth + 1, skip, found);
      }
    }
  }

  private static boolean isTable(ObjectStore store, String location) throws IOException {
    return store.list(TableLayout.metadataFolder(location)).stream()
        .anyMatch(MetadataFileNames::isMetadataFile);
  }
}
