package io.icerepl.app.engine.replica;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * A test-only pause at the replica's write points, for the pause campaign: a process that lost its
 * lease while stopped between its lease check and its write must change nothing. {@link
 * LeasedReplica} calls {@link #reached} after its lease check and before each conditional write.
 *
 * <p>Off unless the system property {@code replicator.test.pause-at=<point>[,<point>…]} names
 * points ({@code state}, {@code publish}, {@code hint}, {@code delete}, {@code tag}: a group's cut
 * tag, before its state and version); then it costs one volatile read per write. With {@code
 * replicator.test.pause-arm=<file>} a point pauses only while that file exists and names it, and
 * the process deletes the file as it pauses, so a campaign decides which process pauses where and
 * when; without it each listed point pauses the first time it is reached. The process prints {@code
 * PAUSE-POINT <point> pid=<pid> table=<location>} and stops itself (SIGSTOP); once continued it
 * prints {@code PAUSE-RESUMED <point> pid=<pid>} and writes.
 */
public final class WritePoints {
  public static final String STATE = "state";
  public static final String PUBLISH = "publish";
  public static final String HINT = "hint";
  public static final String DELETE = "delete";
  public static final String TAG = "tag";

  private static final String POINTS_PROPERTY = "replicator.test.pause-at";
  private static final String ARM_PROPERTY = "replicator.test.pause-arm";

  /** Null when no point pauses: the only cost of the hook in production. */
  private static volatile Set<String> armed = points();

  private WritePoints() {}

  private static Set<String> points() {
    String value = System.getProperty(POINTS_PROPERTY);
    return value == null || value.isBlank() ? null : Set.of(value.trim().split("\\s*,\\s*"));
  }

  /**
   * Called at the start of a write, after the lease check.
   *
   * @param point the write point
   * @param location the replica written, for the marker line
   */
  public static void reached(String point, String location) {
    Set<String> points = armed;
    if (points == null || !points.contains(point)) {
      return;
    }
    synchronized (WritePoints.class) {
      if (!shouldPause(point)) {
        return;
      }
      long pid = ProcessHandle.current().pid();
      System.err.println("PAUSE-POINT " + point + " pid=" + pid + " table=" + location);
      System.err.flush();
      try {
        // the stopped process resumes inside waitFor once continued
        new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start().waitFor();
      } catch (IOException e) {
        System.err.println("PAUSE-FAILED " + point + " pid=" + pid + ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      System.err.println("PAUSE-RESUMED " + point + " pid=" + pid);
      System.err.flush();
    }
  }

  private static boolean shouldPause(String point) {
    String arm = System.getProperty(ARM_PROPERTY);
    if (arm == null) {
      // each listed point pauses once
      Set<String> rest = new HashSet<>(armed);
      rest.remove(point);
      armed = rest.isEmpty() ? null : Set.copyOf(rest);
      return true;
    }
    Path file = Path.of(arm);
    try {
      if (!new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim().equals(point)) {
        return false;
      }
      Files.delete(file);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      return false;
    }
  }
}
