package io.icerepl.lab.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A campaign's pass/fail checks, each named, so a failed verdict says which checks failed. */
final class Verdict {
  private final List<String> failed = new ArrayList<>();

  Verdict check(String name, boolean passed) {
    if (!passed) {
      failed.add(name);
    }
    return this;
  }

  boolean ok() {
    return failed.isEmpty();
  }

  List<String> failed() {
    return List.copyOf(failed);
  }

  /**
   * What both campaigns require of the replica once the service has stopped: it holds every source
   * commit once, every recorded snapshot reads the source's rows, and its refs and current snapshot
   * are the source's.
   */
  Verdict replicaChecks(
      boolean converged,
      int replicated,
      int committed,
      int duplicates,
      long compared,
      long missing,
      long mismatched,
      List<String> refProblems) {
    return check("converged to the source head", converged)
        .check("snapshots read on the replica", compared > 0)
        .check("every source commit replicated", replicated == committed)
        .check("no source commit replicated twice", duplicates == 0)
        .check("no snapshot missing", missing == 0)
        .check("no snapshot reads other rows", mismatched == 0)
        .check("refs and current snapshot as on the source", refProblems.isEmpty());
  }

  /**
   * Differences between the source's and the replica's refs (name to snapshot id) and current
   * snapshots.
   */
  static List<String> refProblems(
      Map<String, Long> sourceRefs,
      Long sourceCurrent,
      Map<String, Long> replicaRefs,
      Long replicaCurrent) {
    List<String> problems = new ArrayList<>();
    if (!Objects.equals(sourceCurrent, replicaCurrent)) {
      problems.add(
          "current snapshot "
              + replicaCurrent
              + " on the replica, "
              + sourceCurrent
              + " on the source");
    }
    if (!sourceRefs.equals(replicaRefs)) {
      problems.add("refs " + replicaRefs + " on the replica, " + sourceRefs + " on the source");
    }
    return problems;
  }
}
