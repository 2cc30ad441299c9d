package io.icerepl.app.service.status;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rules whose source prefix could not be listed at their last reconciliation, each with its
 * error and since when it is not listed: such a rule lags since its last successful listing (or,
 * never listed, since the service started).
 */
final class DiscoveryFailures {
  private final long startedMs;
  private final Map<String, Failure> failures = new ConcurrentHashMap<>();
  private final Map<String, Long> listedAtMs = new ConcurrentHashMap<>();

  /**
   * @param listedAtMs when the rule's source was last listed (or the service started)
   */
  private record Failure(String message, long listedAtMs) {}

  DiscoveryFailures(long startedMs) {
    this.startedMs = startedMs;
  }

  /** The rule's source prefix was listed at {@code nowMs}. */
  void listed(String rule, long nowMs) {
    listedAtMs.put(rule, nowMs);
    failures.remove(rule);
  }

  /**
   * The rule's source prefix could not be listed.
   *
   * @return the message of the failure before, if the rule failed at its previous listing too
   */
  Optional<String> failed(String rule, String message) {
    Failure previous =
        failures.put(rule, new Failure(message, listedAtMs.getOrDefault(rule, startedMs)));
    return Optional.ofNullable(previous).map(Failure::message);
  }

  int count() {
    return failures.size();
  }

  /** The rules whose last listing failed, with the error, by rule. */
  Map<String, String> messages() {
    Map<String, String> failed = new TreeMap<>();
    failures.forEach((rule, failure) -> failed.put(rule, failure.message()));
    return failed;
  }

  /** The largest lag of a failing rule: the time since it was last listed. */
  long maxLagSeconds(long nowMs) {
    return failures.values().stream()
        .mapToLong(f -> TableEntry.secondsSince(f.listedAtMs(), nowMs))
        .max()
        .orElse(0);
  }
}
