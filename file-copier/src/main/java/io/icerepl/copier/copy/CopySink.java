package io.icerepl.copier.copy;

import io.icerepl.merge.copyplan.CopyStep;
import io.icerepl.merge.copyplan.ManifestCopy;
import java.util.concurrent.CompletableFuture;

/** Where a streamed copy plan goes, step by step: the executor that puts the files in place. */
public interface CopySink {

  /**
   * Whether an accepted step is putting this replica file in place right now. A file neither in
   * flight nor at the replica has to be planned; one that is there is done.
   */
  boolean inFlight(String targetPath);

  /**
   * Takes the next step. Blocks while the steps in flight already hold as many files as the sink
   * keeps at a time, so planning never runs far ahead of copying.
   *
   * @throws RuntimeException the failure of an earlier step: planning stops there
   */
  void accept(CopyStep step);

  /**
   * Takes a manifest's step whose files may be copied at once but whose manifest may be written
   * only once {@code check} has completed normally; a failed check fails the step with its error.
   * Blocks as {@link #accept(CopyStep)} does, and also while too many copied files wait for their
   * checks.
   */
  void accept(ManifestCopy step, CompletableFuture<Void> check);
}
