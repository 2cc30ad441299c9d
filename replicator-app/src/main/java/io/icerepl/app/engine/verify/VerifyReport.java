package io.icerepl.app.engine.verify;

import java.time.Instant;
import java.util.List;

/**
 * A verification as the service keeps it: when it ended, what it found, and its first problem lines
 * (a damaged table can have millions; {@code problems} says how many there were).
 *
 * @param verifiedAt when the verification ended
 * @param checked how many items were checked
 * @param problems how many of them are wrong
 * @param firstProblems the first {@link #PROBLEMS_KEPT} problem lines, in the order found
 */
public record VerifyReport(
    Instant verifiedAt, long checked, long problems, List<String> firstProblems) {
  public static final int PROBLEMS_KEPT = 20;

  public VerifyReport {
    firstProblems = List.copyOf(firstProblems);
  }
}
