package io.icerepl.merge.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.icerepl.merge.error.ReplicationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One campaign of bad input: real bytes written by Iceberg, mutated (truncated, bits flipped,
 * lengths inflated, slices zeroed or repeated), then read as replication reads them. Every case
 * must end either in a result or in one of the replicator's specific errors ({@link
 * ReplicationException}); never in another exception, an {@link OutOfMemoryError}, a {@link
 * StackOverflowError} or a hang. The seed is fixed, so a failing case repeats; the figures per kind
 * and outcome are printed.
 */
public final class FuzzCampaign {
  /** Cases per kind: 150 in the suite; {@code -Dfuzz.cases=N} for a longer campaign. */
  public static final int CASES = Integer.getInteger("fuzz.cases", 150);

  private static final long SEED = 20261202L;

  private FuzzCampaign() {}

  public static void run(String kind, byte[] original, Consumer<byte[]> read) {
    Random random = new Random(SEED ^ kind.hashCode() ^ original.length);
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < CASES; i++) {
      String mutation = MUTATIONS[random.nextInt(MUTATIONS.length)];
      byte[] mutated = mutate(mutation, original, random);
      int caseNumber = i;
      String outcome;
      try {
        outcome =
            assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> {
                  try {
                    read.accept(mutated);
                    return "read";
                  } catch (ReplicationException e) {
                    return e.getClass().getSimpleName();
                  }
                },
                () ->
                    kind
                        + ": case "
                        + caseNumber
                        + " ("
                        + mutation
                        + ") hung; its bytes are in "
                        + save(kind, caseNumber, mutated));
      } catch (RuntimeException e) {
        throw new AssertionError(
            kind
                + ": case "
                + caseNumber
                + " ("
                + mutation
                + ") ended in "
                + e
                + "; its bytes are in "
                + save(kind, caseNumber, mutated),
            e);
      }
      outcomes.merge(mutation + " → " + outcome, 1, Integer::sum);
    }
    System.out.println("fuzz " + kind + " (" + CASES + " cases): " + outcomes);
    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CASES);
  }

  /** Keeps a failing case's bytes, so it can be read again outside the campaign. */
  private static Path save(String kind, int caseNumber, byte[] bytes) {
    Path file =
        Path.of(
            "target", "fuzz-failures", kind.replaceAll("[^A-Za-z0-9]+", "-") + "-" + caseNumber);
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file.toAbsolutePath();
  }

  private static final String[] MUTATIONS = {"truncate", "flip", "inflate", "zero", "repeat"};

  private static byte[] mutate(String mutation, byte[] original, Random random) {
    byte[] bytes = original.clone();
    int at = random.nextInt(bytes.length);
    switch (mutation) {
      case "truncate" -> bytes = Arrays.copyOf(bytes, at);
      case "flip" -> {
        for (int n = 1 + random.nextInt(8); n > 0; n--) {
          int p = random.nextInt(bytes.length);
          bytes[p] ^= (byte) (1 << random.nextInt(8));
        }
      }
      case "inflate" -> {
        // a varint (Avro lengths, counts) or a number made as large as its bytes allow
        for (int p = at; p < Math.min(bytes.length, at + 1 + random.nextInt(6)); p++) {
          bytes[p] = (byte) 0xff;
        }
      }
      case "zero" ->
          Arrays.fill(bytes, at, Math.min(bytes.length, at + 1 + random.nextInt(64)), (byte) 0);
      default -> {
        int end = Math.min(bytes.length, at + 1 + random.nextInt(256));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, end);
        out.write(bytes, at, end - at);
        out.write(bytes, end, bytes.length - end);
        bytes = out.toByteArray();
      }
    }
    return bytes;
  }
}
