package io.icerepl.copier.copy;

import io.icerepl.merge.copyplan.CopyStep;

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
}
