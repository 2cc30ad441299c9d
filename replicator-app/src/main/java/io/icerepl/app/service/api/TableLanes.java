package io.icerepl.app.service.api;

import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.service.status.StatusBoard;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.function.Function;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/**
 * What every on-demand endpoint on one table does around its own work: find the table the way the
 * status API addresses it (404 when the board knows none), and run the work in the table's lane, as
 * one of a bounded set of runs, logged with who asked it and from where.
 *
 * @param board where the tables are found
 * @param coordinator whose lanes run the work, one at a time per table
 */
@Component
public record TableLanes(StatusBoard board, ReplicationCoordinator coordinator) {

  /** The answer about the table found; 404 when the board knows no such table. */
  ResponseEntity<Object> forTable(
      String target, String namespace, String table, OnDemandAnswers.TableAnswer answer)
      throws InterruptedException {
    return OnDemandAnswers.forTable(board.find(target, namespace, table), answer);
  }

  /**
   * Asks {@code runs} for {@code work} on the key, run in its lane under the name {@code step}.
   *
   * @param asked how the log names the request, e.g. {@code verification}
   */
  <T> OnDemandRuns.Outcome<T> inLane(
      OnDemandRuns<T> runs,
      TableKey key,
      String asked,
      String step,
      Function<TableKey, T> work,
      Caller caller)
      throws InterruptedException {
    return runs.request(
        key, asked, caller.name(), caller.address(), () -> coordinator.runInLane(key, step, work));
  }

  /** Who asked, and from which address: every mutating request is logged with both. */
  record Caller(String name, String address) {
    static Caller of(Principal principal, HttpServletRequest request) {
      return new Caller(principal.getName(), request.getRemoteAddr());
    }
  }
}
