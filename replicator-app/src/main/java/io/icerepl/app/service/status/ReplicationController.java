package io.icerepl.app.service.status;

import io.icerepl.app.retention.RetentionResult;
import io.icerepl.app.service.worker.ReplicationCoordinator;
import io.icerepl.app.service.worker.TableKey;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The status API. A replica is addressed as {@code {target}/{namespace}/{table}}, where the
 * namespace's levels are joined with '.' (a table at {@code a/b/orders} under the prefixes is
 * {@code a.b/orders}). Tables directly under a prefix have no namespace and are only listed.
 */
@RestController
@RequestMapping("/api/replications")
public class ReplicationController {
  private final StatusBoard board;
  private final ReplicationCoordinator coordinator;

  public ReplicationController(StatusBoard board, ReplicationCoordinator coordinator) {
    this.board = board;
    this.coordinator = coordinator;
  }

  @GetMapping
  public List<ReplicationStatus> list() {
    return board.all();
  }

  @GetMapping("/{target}/{namespace}/{table}")
  public ResponseEntity<ReplicationStatus> get(
      @PathVariable String target, @PathVariable String namespace, @PathVariable String table) {
    return board.find(target, namespace, table).flatMap(board::get).map(ResponseEntity::ok)
        .orElseGet(() -> ResponseEntity.notFound().build());
  }

  /** Runs the replica's retention now, in the table's lane, and returns ClickHouse's metrics. */
  @PostMapping("/{target}/{namespace}/{table}/expire")
  public ResponseEntity<Map<String, Object>> expire(
      @PathVariable String target, @PathVariable String namespace, @PathVariable String table)
      throws InterruptedException {
    TableKey key = board.find(target, namespace, table).orElse(null);
    if (key == null) {
      return ResponseEntity.notFound().build();
    }
    try {
      RetentionResult result = coordinator.expireNow(key).get();
      return ResponseEntity.ok(result.metrics());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return ResponseEntity.status(HttpStatus.CONFLICT)
          .body(Map.of("error", cause.getMessage() != null ? cause.getMessage() : cause.toString()));
    }
  }
}
