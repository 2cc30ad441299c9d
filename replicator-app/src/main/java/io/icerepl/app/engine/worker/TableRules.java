package io.icerepl.app.engine.worker;

import io.icerepl.merge.path.TableLocation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Maps a source table to its replicas: the table's path relative to its rule's source prefix is its
 * path under every target prefix (same name, same namespace). A table location always yields the
 * same keys, whether it came from an event or from discovery.
 */
public final class TableRules {
  private final List<TableRule> rules;

  public TableRules(List<TableRule> rules) {
    this.rules = List.copyOf(rules);
  }

  public List<TableRule> rules() {
    return rules;
  }

  /** The rule of that name. */
  public TableRule rule(String name) {
    return rules.stream()
        .filter(r -> r.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("Cannot find rule " + name));
  }

  /** The keys of a table given by its rule and relative path, one per target. */
  public List<TableKey> keys(TableRule rule, String relativePath) {
    String relative = trimSlashes(relativePath);
    List<TableKey> keys = new ArrayList<>();
    List<String> levels = List.of(relative.split("/"));
    Optional<String> sourceTable =
        rule.catalog().map(c -> c.spec().name() + ":" + String.join(".", levels));
    for (RuleTarget target : rule.targets()) {
      keys.add(
          new TableKey(
              rule.name(),
              target.name(),
              relative,
              join(rule.source(), relative),
              join(target.prefix(), relative),
              sourceTable,
              target.catalog().map(c -> c.name() + ":" + replicaIdentifier(target, levels))));
    }
    return keys;
  }

  /**
   * The replica's identifier in its target's catalog: the source's namespace and name, or the
   * target's namespace and the source's name. Levels joined by {@code .}.
   */
  public static String replicaIdentifier(RuleTarget target, List<String> levels) {
    String name = levels.get(levels.size() - 1);
    String namespace =
        target.namespace().orElseGet(() -> String.join(".", levels.subList(0, levels.size() - 1)));
    return namespace.isEmpty() ? name : namespace + "." + name;
  }

  /**
   * The keys of a source table location, by the rule with the longest source prefix holding it;
   * empty when no rule does. A location with {@code .} or {@code ..} segments is no rule's: it
   * could name a folder outside the prefix it seems to be under.
   */
  public List<TableKey> keysOf(String sourceLocation) {
    String location = trimTrailing(sourceLocation);
    String path =
        location.contains("://") ? location.substring(location.indexOf("://") + 3) : location;
    for (String segment : path.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return List.of();
      }
    }
    // in any spelling of either side: an event's s3:// key is under a rule written s3a://
    TableLocation table = TableLocation.of(location);
    Optional<TableRule> rule =
        rules.stream()
            .filter(r -> holdsBelow(TableLocation.of(r.source()), table))
            .max(Comparator.comparingInt(r -> TableLocation.of(r.source()).canonical().length()));
    return rule.map(r -> keys(r, relative(TableLocation.of(r.source()), table))).orElse(List.of());
  }

  /** Whether {@code table} lies strictly under {@code prefix}: a rule's own folder is no table. */
  private static boolean holdsBelow(TableLocation prefix, TableLocation table) {
    return prefix.contains(table) && !prefix.sameAs(table);
  }

  /** The path of {@code table} below {@code prefix}, without a leading slash. */
  private static String relative(TableLocation prefix, TableLocation table) {
    String below = table.canonical().substring(prefix.canonical().length());
    return below.startsWith("/") ? below.substring(1) : below;
  }

  static String join(String prefix, String relative) {
    return trimTrailing(prefix) + "/" + relative;
  }

  static String trimTrailing(String s) {
    String out = s;
    while (out.endsWith("/") && !out.endsWith("://")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }

  private static String trimSlashes(String s) {
    String out = trimTrailing(s);
    while (out.startsWith("/")) {
      out = out.substring(1);
    }
    return out;
  }
}
