package io.icerepl.app.cli.commands;

import io.icerepl.app.engine.retention.DeletionProgress;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.copy.HumanUnits;
import java.io.Console;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A copy's or an expiry's progress as one line redrawn in place with a carriage return, on a
 * terminal only: files, bytes, rate and time left. Not on a terminal (a pipe, a file, a scheduler's
 * log) nothing is drawn here, and the copier's own log line every few seconds tells the progress
 * instead. One {@code \r} line needs no terminal library: nothing to probe at start-up and nothing
 * added to the jar.
 */
final class ProgressBar implements CopyProgress.Listener {
  private static final int BAR = 24;
  private static final long REDRAW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final PrintWriter out;
  private long lastDrawn = System.nanoTime() - REDRAW_NANOS;
  private int drawnWidth;

  private ProgressBar(PrintWriter out) {
    this.out = out;
  }

  /**
   * A bar drawn to {@code out} when the process runs on a terminal ({@code console} is not null),
   * else nothing.
   */
  static Drawing on(Console console, PrintWriter out) {
    return console == null ? Drawing.NONE : drawnTo(out);
  }

  /** A bar drawn to {@code out}, terminal or not. */
  static Drawing drawnTo(PrintWriter out) {
    return new Drawing(new ProgressBar(out));
  }

  @Override
  public void onProgress(CopyProgress progress) {
    draw(() -> line(progress), false);
  }

  /** Draws a deletion's progress; its last step is always drawn. */
  void onDeletion(DeletionProgress progress) {
    draw(() -> line(progress), progress.filesDone() >= progress.filesTotal());
  }

  private synchronized void draw(Supplier<String> text, boolean last) {
    long now = System.nanoTime();
    if (!last && now - lastDrawn < REDRAW_NANOS) {
      return;
    }
    lastDrawn = now;
    String line = text.get();
    out.print("\r" + line + " ".repeat(Math.max(0, drawnWidth - line.length())));
    out.flush();
    drawnWidth = line.length();
  }

  /** Clears the line, so what is printed next starts on a clean one. */
  synchronized void clear() {
    if (drawnWidth > 0) {
      out.print("\r" + " ".repeat(drawnWidth) + "\r");
      out.flush();
      drawnWidth = 0;
    }
  }

  /**
   * The line for one snapshot of the progress: {@code [#####-----] 42% 840/2,000 files, 420.0
   * MiB/1.0 GiB, 12.5 MiB/s, 2 min 10 s left}. Until the plan is complete its totals are the files
   * planned so far and no time left is told.
   */
  static String line(CopyProgress progress) {
    double done =
        progress.bytesTotal() > 0
            ? (double) progress.bytesDone() / progress.bytesTotal()
            : progress.filesTotal() > 0
                ? (double) progress.filesDone() / progress.filesTotal()
                : progress.planComplete() ? 1 : 0;
    String left = progress.planComplete() ? timeLeft(progress.eta()) : "still planning";
    return String.format(
        Locale.ROOT,
        "%s %,d/%,d files, %s/%s, %s/s, %s",
        bar(done),
        progress.filesDone(),
        progress.filesTotal(),
        HumanUnits.bytes(progress.bytesDone()),
        HumanUnits.bytes(progress.bytesTotal()),
        HumanUnits.bytes((long) progress.bytesPerSecond()),
        left);
  }

  /**
   * The line for one step of an expiry's deletion: {@code [#####-----] 42% 4,200/10,000 files
   * deleted, 850 files/s, 6.8 s left}.
   */
  static String line(DeletionProgress progress) {
    double done =
        progress.filesTotal() > 0 ? (double) progress.filesDone() / progress.filesTotal() : 1;
    return String.format(
        Locale.ROOT,
        "%s %,d/%,d files deleted, %,d files/s, %s",
        bar(done),
        progress.filesDone(),
        progress.filesTotal(),
        Math.round(progress.filesPerSecond()),
        timeLeft(progress.eta()));
  }

  /** {@code [##########--------------] 42%} for a fraction done, clamped to 0–1. */
  private static String bar(double done) {
    double clamped = Math.max(0, Math.min(1, done));
    int filled = (int) Math.round(clamped * BAR);
    return String.format(
        Locale.ROOT,
        "[%s%s] %3d%%",
        "#".repeat(filled),
        "-".repeat(BAR - filled),
        Math.round(clamped * 100));
  }

  private static String timeLeft(Optional<Duration> eta) {
    return eta.map(t -> HumanUnits.time(t) + " left").orElse("time left unknown");
  }

  /** The listener to give the copier, and the clearing of its line once the copy is done. */
  static final class Drawing {
    static final Drawing NONE = new Drawing(null);
    private final ProgressBar bar;

    private Drawing(ProgressBar bar) {
      this.bar = bar;
    }

    CopyProgress.Listener listener() {
      return bar == null ? CopyProgress.Listener.NONE : bar;
    }

    DeletionProgress.Listener deletions() {
      return bar == null ? DeletionProgress.Listener.NONE : bar::onDeletion;
    }

    void clear() {
      if (bar != null) {
        bar.clear();
      }
    }
  }
}
