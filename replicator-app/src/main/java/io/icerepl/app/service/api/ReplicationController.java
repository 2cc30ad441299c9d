package io.icerepl.app.service.api;

import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.icerepl.app.service.security.ApiProperties;
import io.icerepl.app.service.status.ReplicationStatus;
import io.icerepl.app.service.status.StatusBoard;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The status API. A replica is addressed as {@code {target}/{namespace}/{table}}, where the
 * namespace's levels are joined with the unit separator U+001F, {@code %1F} in a URL, as the
 * Iceberg REST catalog joins them: a table at {@code a/b/orders} under the prefixes is {@code
 * a%1Fb/orders}, and one at {@code a.b/orders} is {@code a.b/orders}. Tables directly under a
 * prefix have no namespace and are only listed.
 */
@RestController
@RequestMapping("/api/replications")
public class ReplicationController {
  private final StatusBoard board;
  private final OnDemandExpiries expiries;

  public ReplicationController(
      StatusBoard board,
      ReplicationCoordinator coordinator,
      ReplicatorProperties properties,
      ApiProperties api) {
    this.board = board;
    Set<String> retentionEnabled =
        properties.rules().stream()
            .filter(rule -> rule.retention().enabled())
            .map(ReplicatorProperties.Rule::name)
            .collect(Collectors.toUnmodifiableSet());
    this.expiries =
        new OnDemandExpiries(
            coordinator::expireNow,
            retentionEnabled::contains,
            api.expire().maxPending(),
            api.expire().timeout());
  }

  @GetMapping
  public List<ReplicationStatus> list() {
    return board.all();
  }

  @GetMapping("/{target}/{namespace}/{table}")
  public ResponseEntity<ReplicationStatus> get(
      @PathVariable String target, @PathVariable String namespace, @PathVariable String table) {
    return board
        .find(target, namespace, table)
        .flatMap(board::get)
        .map(ResponseEntity::ok)
        .orElseGet(() -> ResponseEntity.notFound().build());
  }

  /**
   * Runs the replica's retention now, in the table's lane, and returns ClickHouse's metrics; 202
   * when it is still running after {@code replicator.api.expire.timeout}, 409 when the rule's
   * retention is disabled or the expiry failed, 429 when too many are pending.
   */
  @PostMapping("/{target}/{namespace}/{table}/expire")
  public ResponseEntity<Object> expire(
      @PathVariable String target,
      @PathVariable String namespace,
      @PathVariable String table,
      Principal caller,
      HttpServletRequest request)
      throws InterruptedException {
    return OnDemandAnswers.forTable(
        board.find(target, namespace, table),
        key -> {
          String cannot = OnDemandAnswers.cannot("expire snapshots of", key);
          OnDemandRuns.Outcome<RetentionResult> outcome =
              expiries.request(key, caller.getName(), request.getRemoteAddr());
          if (outcome instanceof OnDemandExpiries.RetentionDisabled disabled) {
            return OnDemandAnswers.error(
                HttpStatus.CONFLICT,
                cannot
                    + "retention is disabled for rule "
                    + disabled.rule()
                    + " (replicator.rules[].retention.enabled)",
                List.of());
          }
          return OnDemandAnswers.answer(
              outcome,
              RetentionResult::metrics,
              OnDemandAnswers.running("Expiry", key, "", "its outcome is logged"),
              OnDemandAnswers.busy(cannot, "expiries"),
              "",
              List::of);
        });
  }
}
