package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The first failure of a run is the run's, unwrapped from the futures that carried it; once there
 * is one, nothing more is admitted, and an interrupted wait fails the run naming the table.
 */
class StepAdmissionTest {
  private final StepAdmission admission = new StepAdmission("db.t", 2, 2);

  @Test
  void theFirstFailureIsTheRunsAndNothingIsAdmittedAfterIt() {
    IllegalStateException first = new IllegalStateException("first");
    assertThat(admission.takePlaces(1)).isNull();

    admission.fail(new CompletionException(first));
    admission.fail(new IllegalStateException("second"));

    assertThat(admission.takePlaces(1)).isSameAs(first);
    assertThatThrownBy(admission::throwIfFailed).isSameAs(first);
    admission.releasePlaces(1);
    admission.settle(); // the refused take held nothing
  }

  @Test
  void aCheckedFailureIsThrownInACompletionException() {
    IOException failed = new IOException("Cannot read s/m.avro");
    admission.fail(failed);

    assertThatThrownBy(admission::throwIfFailed)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isSameAs(failed);
  }

  @Test
  void anInterruptedWaitFailsTheRunNamingTheTable() {
    Thread.currentThread().interrupt();
    Throwable failed;
    try {
      failed = admission.takeAwaitingCheck(1);
    } finally {
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    }

    assertThat(failed)
        .isInstanceOf(UncheckedIOException.class)
        .cause()
        .isInstanceOf(InterruptedIOException.class)
        .hasMessage("Cannot copy the files of table db.t: interrupted");
    assertThatThrownBy(admission::throwIfFailed).isSameAs(failed);
    admission.settle();
  }
}
