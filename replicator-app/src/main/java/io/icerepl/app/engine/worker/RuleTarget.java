package io.icerepl.app.engine.worker;

import io.icerepl.merge.path.PathMapping;
import java.util.List;

/**
 * One target of a rule.
 *
 * @param name the target's name, in the status and metric tags
 * @param prefix the prefix under which replicas are written
 * @param map where files under a source prefix go on this target, for data kept outside the tables
 */
public record RuleTarget(String name, String prefix, List<PathMapping.Prefix> map) {
  public RuleTarget {
    map = List.copyOf(map);
  }
}
