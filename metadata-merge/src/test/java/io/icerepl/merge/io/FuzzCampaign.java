package io.icerepl.merge.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.icerepl.merge.error.ReplicationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *
 * <p>A random mutation seldom makes a length large enough to matter, and a test JVM's heap holds
 * what a missing bound would allocate, so two more things make a missing {@link DecodeBounds} bound
 * fail here: every length and count the file claims is also set towards and past its bound ({@link
 * Claims}), with the outcome each must have; and each case's allocation, on any thread, is measured
 * and held to what the smallest heap the service runs in holds.
 */
public final class FuzzCampaign {
  /** Cases per kind: 150 in the suite; {@code -Dfuzz.cases=N} for a longer campaign. */
  public static final int CASES = Integer.getInteger("fuzz.cases", 150);

  private static final long SEED = 20261202L;

  private FuzzCampaign() {}

  /**
   * The most one case may allocate, whatever it reads: the heap the service is sized for at its
   * smallest ({@code -Xmx256m}), which every file of a few kilobytes must stay well within.
   */
  static final long CASE_ALLOCATION_BYTES = 256L << 20;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /**
   * Runs the campaign on {@code original}, which must read: random mutations, then every length and
   * count the file claims ({@link Claims}) set towards and past its bound. Each case ends in a
   * result or a specific error, allocating at most {@link #CASE_ALLOCATION_BYTES}; a claim past its
   * bound is refused before what it claims is allocated (by a {@link DecodeBounds} check, where one
   * is the first to see it); a count claimed past what the file holds is never read as given.
   */
  public static void run(String kind, byte[] original, Consumer<byte[]> read) {
    assertThat(outcome(kind, "unmutated", -1, original, read).kind())
        .as("%s: the unmutated file reads", kind)
        .isEqualTo(READ);
    Random random = new Random(SEED ^ kind.hashCode() ^ original.length);
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < CASES; i++) {
      String mutation = MUTATIONS[random.nextInt(MUTATIONS.length)];
      byte[] mutated = mutate(mutation, original, random);
      Outcome outcome = outcome(kind, mutation, i, mutated, read);
      outcomes.merge(mutation + " → " + outcome.kind(), 1, Integer::sum);
    }
    System.out.println("fuzz " + kind + " (" + CASES + " cases): " + outcomes);
    inflateClaims(kind, original, read);
  }

  /** Every claim of the file, set towards its bound and past it, with its expected outcome. */
  private static void inflateClaims(String kind, byte[] original, Consumer<byte[]> read) {
    List<Claims.Claim> claims = Claims.of(original);
    Map<String, Integer> outcomes = new TreeMap<>();
    int caseNumber = CASES;
    for (Claims.Claim claim : claims) {
      for (long value : pastBound(claim)) {
        String mutation = claim.name() + " = " + value;
        Outcome outcome =
            outcome(kind, mutation, caseNumber++, claim.claiming().apply(value), read);
        outcomes.merge(claim.name() + " past its bound → " + outcome.kind(), 1, Integer::sum);
        assertThat(outcome.kind()).as("%s: %s is refused", kind, mutation).isNotEqualTo(READ);
        if (claim.boundRefuses()) {
          assertThat(outcome.kind())
              .as("%s: %s is refused by its bound", kind, mutation)
              .isEqualTo(BOUND);
        }
        if (value >= NOTICEABLE_BYTES) {
          assertThat(outcome.allocated())
              .as("%s: %s is refused before what it claims is allocated", kind, mutation)
              .isLessThan(value);
        }
      }
      if (claim.bound() > 0) {
        // within the bound: read or refused, but within the case's allocation like any other
        long value = claim.bound() - 1;
        Outcome outcome =
            outcome(
                kind,
                claim.name() + " = " + value,
                caseNumber++,
                claim.claiming().apply(value),
                read);
        outcomes.merge(claim.name() + " towards its bound → " + outcome.kind(), 1, Integer::sum);
      }
    }
    System.out.println("fuzz " + kind + " claims: " + outcomes);
  }

  /** Values just past the bound, far past it, and the largest the field holds. */
  private static List<Long> pastBound(Claims.Claim claim) {
    List<Long> values = new ArrayList<>();
    if (claim.bound() > 0) {
      values.add(claim.bound() + 1);
      values.add(claim.bound() * 2);
    }
    values.add(Integer.MAX_VALUE - 8L); // the largest array Java allocates
    values.add((long) Integer.MAX_VALUE);
    values.add(1L << 40);
    values.add(Long.MAX_VALUE >> 1);
    return values.stream().filter(v -> v > claim.bound() && v <= claim.max()).distinct().toList();
  }

  /**
   * A claim this large is told from the few kilobytes parsing a small file allocates: a case that
   * allocated as much as it claimed allocated the claim.
   */
  private static final long NOTICEABLE_BYTES = 1L << 20;

  private static final String READ = "read";
  private static final String BOUND = "refused by a bound";

  /**
   * What one case ended in: read, refused by a bound, or refused with another specific error (its
   * type); and the bytes the process allocated meanwhile, on whatever thread.
   */
  private record Outcome(String kind, long allocated) {}

  private static Outcome outcome(
      String kind, String mutation, int caseNumber, byte[] mutated, Consumer<byte[]> read) {
    long before = THREADS.getTotalThreadAllocatedBytes();
    String outcome;
    try {
      outcome =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20),
              () -> {
                try {
                  read.accept(mutated);
                  return READ;
                } catch (ReplicationException e) {
                  return DecodeBounds.exceeded(e).isPresent()
                      ? BOUND
                      : e.getClass().getSimpleName();
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
    } catch (RuntimeException | OutOfMemoryError e) {
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
    long allocated = THREADS.getTotalThreadAllocatedBytes() - before;
    if (allocated > CASE_ALLOCATION_BYTES) {
      throw new AssertionError(
          kind
              + ": case "
              + caseNumber
              + " ("
              + mutation
              + ") allocated "
              + allocated
              + " bytes, more than "
              + CASE_ALLOCATION_BYTES
              + "; its bytes are in "
              + save(kind, caseNumber, mutated));
    }
    return new Outcome(outcome, allocated);
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
