package io.icerepl.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Least-privilege checks over the Allow statements granted to a role. Each returns the violations
 * it finds, so a test can show both that a template passes and that a bad policy fails ({@code
 * PolicyChecksTest}).
 */
final class PolicyChecks {

  private PolicyChecks() {}

  /** Actions that are "*", end in ":*", or hold any other wildcard. */
  static List<String> wildcardActions(List<Statement> statements) {
    List<String> violations = new ArrayList<>();
    for (Statement s : allowing(statements)) {
      s.actions().stream()
          .filter(a -> a.contains("*"))
          .forEach(a -> violations.add(s + ": wildcard action " + a));
    }
    return violations;
  }

  /**
   * Resources that are "*", or every resource of a service, account, bucket or key family (ending
   * in ":*" or "/*"). Object grants end in "prefix*", never in "/*".
   */
  static List<String> wildcardResources(List<Statement> statements) {
    List<String> violations = new ArrayList<>();
    for (Statement s : allowing(statements)) {
      if (s.resources().isEmpty()) {
        violations.add(s + ": no Resource");
      }
      s.resources().stream()
          .filter(r -> r.equals("*") || r.endsWith(":*") || everyOneOfItsKind(r))
          .forEach(r -> violations.add(s + ": wildcard resource " + r));
    }
    return violations;
  }

  /**
   * Whether a resource ending in {@code /*} names every one of its kind ({@code bucket/*}, {@code
   * key/*}) rather than objects under a path ({@code bucket/prefix/data/*}).
   */
  private static boolean everyOneOfItsKind(String resource) {
    if (!resource.endsWith("/*")) {
      return false;
    }
    String name = resource.substring(resource.lastIndexOf(':') + 1);
    return name.indexOf('/') == name.length() - 2;
  }

  /**
   * S3 grants outside the allowed scope: any S3 action but s3:ListBucket must name only objects
   * under one of {@code objectPrefixes} (each given as "arn:...:bucket/prefix", granted as
   * "prefix*"), and s3:ListBucket only one of {@code buckets}.
   */
  static List<String> s3GrantsOutside(
      List<Statement> statements, Set<String> objectPrefixes, Set<String> buckets) {
    List<String> violations = new ArrayList<>();
    for (Statement s : allowing(statements)) {
      if (!s.hasActionOf("s3")) {
        continue;
      }
      boolean listsOnly = s.actions().equals(List.of("s3:ListBucket"));
      if (!listsOnly && s.actions().contains("s3:ListBucket")) {
        violations.add(s + ": s3:ListBucket shares a statement with object actions");
        continue;
      }
      for (String resource : s.resources()) {
        boolean allowed =
            listsOnly
                ? buckets.contains(resource)
                : objectPrefixes.stream().anyMatch(p -> resource.equals(p + "*"));
        if (!allowed) {
          violations.add(s + ": resource " + resource + " is outside the replicated prefixes");
        }
      }
    }
    return violations;
  }

  /** s3:ListBucket grants without an s3:prefix condition, or whose condition allows any prefix. */
  static List<String> listBucketWithoutPrefixCondition(List<Statement> statements) {
    List<String> violations = new ArrayList<>();
    for (Statement s : allowing(statements)) {
      if (!s.actions().contains("s3:ListBucket")) {
        continue;
      }
      List<String> prefixes = prefixCondition(s.condition());
      if (prefixes.isEmpty()) {
        violations.add(s + ": s3:ListBucket without an s3:prefix condition");
      }
      prefixes.stream()
          .filter(p -> p.equals("*") || p.isEmpty())
          .forEach(p -> violations.add(s + ": s3:prefix condition allows any prefix"));
    }
    return violations;
  }

  /** Grants of {@code service} actions on anything but {@code allowedResources}. */
  static List<String> grantsOutside(
      List<Statement> statements, String service, Set<String> allowedResources) {
    List<String> violations = new ArrayList<>();
    for (Statement s : allowing(statements)) {
      if (!s.hasActionOf(service)) {
        continue;
      }
      if (s.actions().stream().anyMatch(a -> !a.startsWith(service + ":"))) {
        violations.add(s + ": " + service + " actions share a statement with other services");
      }
      s.resources().stream()
          .filter(r -> !allowedResources.contains(r))
          .forEach(r -> violations.add(s + ": " + service + " permission on " + r));
    }
    return violations;
  }

  /** Actions of services the role has no business with. */
  static List<String> actionsOutsideServices(List<Statement> statements, Set<String> services) {
    List<String> violations = new ArrayList<>();
    for (Statement s : allowing(statements)) {
      s.actions().stream()
          .filter(a -> !services.contains(a.substring(0, Math.max(a.indexOf(':'), 0))))
          .forEach(a -> violations.add(s + ": action " + a + " of an unexpected service"));
    }
    return violations;
  }

  private static List<String> prefixCondition(JsonNode condition) {
    List<String> prefixes = new ArrayList<>();
    for (String operator : List.of("StringLike", "StringEquals")) {
      prefixes.addAll(Template.renderAll(condition.path(operator).path("s3:prefix")));
    }
    return prefixes;
  }

  private static List<Statement> allowing(List<Statement> statements) {
    return statements.stream().filter(Statement::allows).toList();
  }
}
