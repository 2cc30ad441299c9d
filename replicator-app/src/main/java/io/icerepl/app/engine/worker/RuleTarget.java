package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.merge.path.PathMapping;
import java.util.List;
import java.util.Optional;

/**
 * One target of a rule.
 *
 * @param name the target's name, in the status and metric tags
 * @param prefix the prefix under which replicas are written
 * @param map where files under a source prefix go on this target, for data kept outside the tables
 * @param catalog the catalog every replica is registered in, if any
 * @param namespace the replicas' namespace in that catalog (levels joined by {@code .}); empty: the
 *     source table's own
 */
public record RuleTarget(
    String name,
    String prefix,
    List<PathMapping.Prefix> map,
    Optional<CatalogSpec> catalog,
    Optional<String> namespace) {
  public RuleTarget {
    map = List.copyOf(map);
  }

  /** A target registering its replicas nowhere. */
  public RuleTarget(String name, String prefix, List<PathMapping.Prefix> map) {
    this(name, prefix, map, Optional.empty(), Optional.empty());
  }
}
