package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.catalog.CatalogSpec;
import java.util.List;

/**
 * A rule whose source tables are a catalog's: every table in the listed namespaces (and the
 * namespaces nested in them), or in every namespace when none is listed.
 *
 * @param spec the catalog
 * @param namespaces namespaces, levels joined by {@code .}; empty: all
 */
public record RuleCatalog(CatalogSpec spec, List<String> namespaces) {
  public RuleCatalog {
    namespaces = List.copyOf(namespaces);
  }

  /** Whether a namespace (levels joined by {@code .}) is one the rule replicates. */
  public boolean includes(String namespace) {
    return namespaces.isEmpty()
        || namespaces.stream().anyMatch(n -> namespace.equals(n) || namespace.startsWith(n + "."));
  }

  /** The pseudo-location that stands for the catalog where a rule has no source prefix. */
  public String label() {
    return "catalog:" + spec.name();
  }
}
