package io.icerepl.app.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.retention.DeletionProgress;
import io.icerepl.copier.copy.CopyProgress;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressBarTest {
  private static final long MIB = 1024 * 1024;

  @Test
  void aCompletePlanShowsFilesBytesRateAndTimeLeftInHumanUnits() {
    // 100 MiB of 1 GiB in 10 s: 10 MiB/s, 924 MiB left take 92.4 s
    CopyProgress progress =
        new CopyProgress("t", 200, 2000, 100 * MIB, 1024 * MIB, Duration.ofSeconds(10), true);
    assertThat(ProgressBar.line(progress))
        .isEqualTo(
            "[##----------------------]  10% 200/2,000 files, 100.0 MiB/1.0 GiB, 10.0 MiB/s,"
                + " 1 min 32 s left");
  }

  @Test
  void whilePlanningTheTotalsAreSoFarAndNoTimeLeftIsTold() {
    CopyProgress progress =
        new CopyProgress("t", 50, 100, 5 * MIB, 10 * MIB, Duration.ofSeconds(1), false);
    assertThat(ProgressBar.line(progress))
        .isEqualTo(
            "[############------------]  50% 50/100 files, 5.0 MiB/10.0 MiB, 5.0 MiB/s,"
                + " still planning");
  }

  @Test
  void aPlanWithoutBytesToCopyCountsFilesAndNeverSaysNull() {
    CopyProgress rewrittenOnly = new CopyProgress("t", 3, 4, 0, 0, Duration.ofMillis(500), true);
    assertThat(ProgressBar.line(rewrittenOnly))
        .isEqualTo("[##################------]  75% 3/4 files, 0 B/0 B, 0 B/s, 0.0 s left")
        .doesNotContain("null");
    CopyProgress empty = new CopyProgress("t", 0, 0, 0, 0, Duration.ZERO, true);
    assertThat(ProgressBar.line(empty)).startsWith("[########################] 100% 0/0 files");
  }

  @Test
  void anExpiryShowsFilesDeletedRateAndTimeLeft() {
    // 4,200 of 10,000 in 5 s: 840 files/s, 5,800 left take 6.9 s
    DeletionProgress progress = new DeletionProgress("t", 4200, 10000, Duration.ofSeconds(5));
    assertThat(ProgressBar.line(progress))
        .isEqualTo(
            "[##########--------------]  42% 4,200/10,000 files deleted, 840 files/s, 6.9 s left");
    DeletionProgress nothing = new DeletionProgress("t", 0, 0, Duration.ZERO);
    assertThat(ProgressBar.line(nothing))
        .isEqualTo("[########################] 100% 0/0 files deleted, 0 files/s, 0.0 s left");
  }

  @Test
  void theLastStepOfADeletionIsDrawnHoweverSoonItComes() {
    StringWriter out = new StringWriter();
    ProgressBar.Drawing shown = ProgressBar.drawnTo(new PrintWriter(out));
    shown.deletions().onProgress(new DeletionProgress("t", 1, 3, Duration.ofMillis(1)));
    shown.deletions().onProgress(new DeletionProgress("t", 2, 3, Duration.ofMillis(2)));
    shown.deletions().onProgress(new DeletionProgress("t", 3, 3, Duration.ofMillis(3)));
    assertThat(out.toString()).contains("1/3 files deleted").doesNotContain("2/3").contains("3/3");
  }

  @Test
  void withoutATerminalNothingIsDrawn() {
    StringWriter out = new StringWriter();
    ProgressBar.Drawing drawing = ProgressBar.on(null, new PrintWriter(out));
    assertThat(drawing.listener()).isSameAs(CopyProgress.Listener.NONE);
    drawing.listener().onProgress(new CopyProgress("t", 1, 2, 1, 2, Duration.ofSeconds(1), true));
    drawing.clear();
    assertThat(out.toString()).isEmpty();
  }
}
