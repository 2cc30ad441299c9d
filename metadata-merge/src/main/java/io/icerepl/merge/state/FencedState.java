package io.icerepl.merge.state;

import java.util.Objects;

/**
 * A replica's state with the fencing epoch of the run that wrote it. Every run that writes the
 * state under the table's lease writes one epoch more than the state held when it read it, so the
 * epoch grows with each holder that writes: a run whose conditional write was refused finds a
 * larger epoch than its own and knows, by what it reads and not by a clock, that another run took
 * the table over.
 *
 * @param fencingEpoch 0 for a state no leased run of this release has written yet
 */
public record FencedState(ReplicaState state, long fencingEpoch) {
  public FencedState {
    Objects.requireNonNull(state, "state");
    if (fencingEpoch < 0) {
      throw new IllegalArgumentException("Cannot fence a state with epoch " + fencingEpoch);
    }
  }
}
