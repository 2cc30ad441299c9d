package io.icerepl.app.service.api;

import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.logging.Redaction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The one mapping of an on-demand operation's {@link OnDemandRuns.Outcome} to its HTTP answer, so
 * verify, expire, promote and fail-back answer alike:
 *
 * <ul>
 *   <li>{@link OnDemandRuns.Done}: 200 with {@code body} of the result;
 *   <li>{@link OnDemandRuns.Running}: 202 with {@code {"status": "running", "message": ...}}, the
 *       message saying how long it was waited for and where its outcome will show;
 *   <li>{@link OnDemandRuns.TooManyPending}: 429 with {@code {"error": ...}};
 *   <li>{@link OnDemandRuns.Failed}: 409 with {@code {"error": prefix + message}}, plus {@code
 *       "problems"} when there are any (the promotion's verify findings).
 * </ul>
 *
 * Every {@code error} passes through {@link Redaction}: a failure message may quote a location with
 * credentials. Outcomes particular to one operation (retention disabled) are answered by its
 * controller before it comes here.
 */
final class OnDemandAnswers {
  private OnDemandAnswers() {}

  /**
   * @param body the 200 body made of the result
   * @param running the 202 message, given how long the request waited
   * @param busy the 429 message, given how many are pending
   * @param failedPrefix put before a failure's message in the 409 ({@code ""} when the message
   *     already names the table)
   * @param problems the 409's {@code problems}, read when it fails (empty: no such field)
   */
  static <T> ResponseEntity<Object> answer(
      OnDemandRuns.Outcome<T> outcome,
      Function<T, ?> body,
      Function<Duration, String> running,
      IntFunction<String> busy,
      String failedPrefix,
      Supplier<List<String>> problems) {
    if (outcome instanceof OnDemandRuns.Done<T> done) {
      return ResponseEntity.ok(body.apply(done.result()));
    }
    if (outcome instanceof OnDemandRuns.Running<T> waiting) {
      return ResponseEntity.status(HttpStatus.ACCEPTED)
          .body(Map.of("status", "running", "message", running.apply(waiting.waited())));
    }
    if (outcome instanceof OnDemandRuns.TooManyPending<T> pending) {
      return error(HttpStatus.TOO_MANY_REQUESTS, busy.apply(pending.pending()), List.of());
    }
    if (outcome instanceof OnDemandRuns.Failed<T> failed) {
      return error(HttpStatus.CONFLICT, failedPrefix + failed.message(), problems.get());
    }
    throw new IllegalArgumentException("Cannot answer outcome " + outcome + ": unknown kind");
  }

  /** An error answer: {@code {"error": message}} redacted, with {@code problems} if any. */
  static ResponseEntity<Object> error(HttpStatus status, String message, List<String> problems) {
    return ResponseEntity.status(status)
        .body(
            problems.isEmpty()
                ? Map.of("error", Redaction.apply(message))
                : Map.of("error", Redaction.apply(message), "problems", problems));
  }

  /** An answer about a table the board knows. */
  @FunctionalInterface
  interface TableAnswer {
    ResponseEntity<Object> answer(TableKey key) throws InterruptedException;
  }

  /** The answer about the table found; 404 when the board knows no such table. */
  static ResponseEntity<Object> forTable(Optional<TableKey> found, TableAnswer answer)
      throws InterruptedException {
    return found.isEmpty() ? ResponseEntity.notFound().build() : answer.answer(found.get());
  }

  /** {@code Cannot <verb> <table> on <target>: }, the start of each error about a table. */
  static String cannot(String verb, TableKey key) {
    return "Cannot " + verb + " " + key.table() + " on " + key.target() + ": ";
  }

  /**
   * The usual 202 message: {@code <what> of <table> on <target><detail> still running after
   * <waited>; <then>}.
   */
  static Function<Duration, String> running(String what, TableKey key, String detail, String then) {
    return waited ->
        what
            + " of "
            + key.table()
            + " on "
            + key.target()
            + detail
            + " still running after "
            + waited
            + "; "
            + then;
  }

  /**
   * The usual 429 message: {@code <cannot><pending> <plural> are already pending; try again later}.
   */
  static IntFunction<String> busy(String cannot, String plural) {
    return pending -> cannot + pending + " " + plural + " are already pending; try again later";
  }
}
