package io.icerepl.lab.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs one service-jar command as an operator's crash would meet it: its first attempts SIGKILLed,
 * then run until it exits 0. The campaigns' drills share it.
 *
 * <p>An attempt meant to be killed that exits 0 before its moment came did not crash: the tables
 * are put back as they were before it and the attempt is drawn again within the time it took, so
 * every kill drawn lands in a real run. Only a command that keeps finishing first {@link
 * #MAX_MISSES} times keeps its result.
 */
final class KilledRuns {
  /** How many times in a row an attempt meant to be killed may finish first before it stands. */
  static final int MAX_MISSES = 5;

  /**
   * The runs of one command until it exited 0.
   *
   * @param killsAfterWriting the kills that came after the command had changed a watched table
   * @param undone the runs meant to be killed that finished first and were undone
   * @param seconds from the first attempt's start to the last one's end
   * @param output what the run that exited 0 printed
   */
  record Attempts(int kills, int killsAfterWriting, int undone, double seconds, String output) {}

  /** A command that exited non-zero without being killed. */
  static final class CommandFailed extends IOException {
    CommandFailed(String message) {
      super(message);
    }
  }

  private final ServiceJar jar;
  private final Random random;

  KilledRuns(ServiceJar jar, Random random) {
    this.jar = jar;
    this.random = random;
  }

  /**
   * @param dir where each attempt's log and the tables' copies go
   * @param name the command's name in log file names
   * @param kills how many attempts to kill
   * @param window the kill moments are drawn within this many seconds of an attempt's start
   * @param afterFirstWrite whether the first kill, as soon as the attempt first changed a watched
   *     table, and half the others (drawn at random), within 20 ms of that, come after a write
   *     rather than at a random moment of the window, which mostly falls in the JVM's start-up
   * @param watched the tables whose change marks a kill as after writing
   * @param tables the tables put back when an attempt meant to be killed finished first
   */
  Attempts runToSuccess(
      Path dir,
      String name,
      List<String> command,
      int kills,
      double window,
      boolean afterFirstWrite,
      List<Path> watched,
      List<Path> tables)
      throws IOException, InterruptedException {
    long started = System.nanoTime();
    int killed = 0;
    int killedAfterWriting = 0;
    int misses = 0;
    double drawWindow = window;
    for (int attempt = 1; ; attempt++) {
      Path log = dir.resolve(name + "-" + attempt + ".log");
      List<String> before = listing(watched);
      boolean toKill = killed < kills && misses < MAX_MISSES;
      Path saved = toKill ? TableFolders.save(tables, dir.resolve("before-" + name)) : null;
      long attemptStarted = System.nanoTime();
      Process process = jar.start(log, command);
      if (toKill) {
        boolean running;
        if (afterFirstWrite && (killed == 0 || random.nextBoolean())) {
          long deadline = System.nanoTime() + (long) (Math.max(drawWindow, 1) * 3e9);
          while (process.isAlive()
              && listing(watched).equals(before)
              && System.nanoTime() < deadline) {
            Thread.sleep(2);
          }
          running = !process.waitFor(killed == 0 ? 0 : random.nextInt(20), TimeUnit.MILLISECONDS);
        } else {
          long delay = (long) (random.nextDouble() * drawWindow * 1000);
          running = !process.waitFor(delay, TimeUnit.MILLISECONDS);
        }
        if (running) {
          process.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no graceful stop
          process.waitFor();
          killed++;
          if (!listing(watched).equals(before)) {
            killedAfterWriting++;
          }
          continue;
        }
        if (process.exitValue() == 0) {
          misses++;
          drawWindow = (System.nanoTime() - attemptStarted) / 1e9;
          TableFolders.restore(tables, saved);
          continue;
        }
      }
      int exit = process.waitFor();
      String output = Files.readString(log);
      if (exit != 0) {
        throw new CommandFailed(name + " exited " + exit + " (see " + log + "): " + tail(output));
      }
      return new Attempts(
          killed, killedAfterWriting, misses, (System.nanoTime() - started) / 1e9, output);
    }
  }

  /**
   * Every file under the folders with its length, so a kill after a write shows. Read while the
   * command writes: a file renamed or removed during the walk (a temporary file published) makes it
   * walk again.
   */
  static List<String> listing(List<Path> folders) {
    while (true) {
      try {
        List<String> files = new ArrayList<>();
        for (Path folder : folders) {
          if (!Files.isDirectory(folder)) {
            continue;
          }
          try (Stream<Path> walk = Files.walk(folder)) {
            walk.filter(Files::isRegularFile)
                .forEach(f -> files.add(f + " " + f.toFile().length()));
          }
        }
        files.sort(null);
        return files;
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof NoSuchFileException)) {
          throw e;
        }
      } catch (NoSuchFileException e) {
        // the same, met by the walk's first step
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  static String tail(String output) {
    String trimmed = output.strip();
    return trimmed.length() <= 400 ? trimmed : "…" + trimmed.substring(trimmed.length() - 400);
  }
}
