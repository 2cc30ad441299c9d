package io.icerepl.merge.manifest;

import static io.icerepl.merge.manifest.IcebergTables.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.manifest.IcebergTables.Fixture;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ManifestFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bounded fuzz campaign of bad input: real manifests, manifest lists and metadata JSON written by
 * Iceberg, mutated (truncated, bits flipped, lengths inflated, slices zeroed or repeated), then
 * read and rewritten as replication does. Every case must end either in a result or in one of the
 * replicator's specific errors ({@link ReplicationException}); never in another exception, an
 * {@link OutOfMemoryError}, a {@link StackOverflowError} or a hang. The seed is fixed, so a failing
 * case repeats; the figures per kind and outcome are printed.
 */
class BadInputFuzzTest {
  /** Cases per kind: 150 in the suite; {@code -Dfuzz.cases=N} for a longer campaign. */
  private static final int CASES = Integer.getInteger("fuzz.cases", 150);

  private static final long SEED = 20261202L;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void mutatedManifestsEndInAResultOrASpecificError(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    for (ManifestFile manifest : fixture.current().allManifests(fixture.io())) {
      byte[] original = bytes(manifest.path());
      campaign(
          "manifest v" + formatVersion,
          original,
          mutated ->
              ManifestRewriter.rewrite(
                  new ByteArrayInputStream(mutated),
                  new ByteArrayOutputStream(),
                  "m.avro",
                  fixture.mapping()::map,
                  p -> null));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void mutatedManifestListsEndInAResultOrASpecificError(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    campaign(
        "manifest list v" + formatVersion,
        bytes(fixture.current().manifestListLocation()),
        mutated ->
            ManifestListRewriter.rewrite(
                new ByteArrayInputStream(mutated),
                new ByteArrayOutputStream(),
                "snap.avro",
                fixture.mapping()::map,
                path -> 1L));
  }

  @Test
  void mutatedMetadataJsonEndsInAResultOrASpecificError() {
    Fixture fixture = IcebergTables.create(dir, 2);
    String file = ((BaseTable) fixture.table()).operations().current().metadataFileLocation();
    campaign(
        "metadata JSON",
        bytes(file),
        mutated ->
            TableMetadataParser.read(
                new ByteArrayInputStream(mutated), "v3.metadata.json", 1 << 20));
  }

  private static void campaign(String kind, byte[] original, Consumer<byte[]> read) {
    Random random = new Random(SEED ^ kind.hashCode() ^ original.length);
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < CASES; i++) {
      String mutation = MUTATIONS[random.nextInt(MUTATIONS.length)];
      byte[] mutated = mutate(mutation, original, random);
      int caseNumber = i;
      String outcome =
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
              () -> kind + ": case " + caseNumber + " (" + mutation + ") hung");
      outcomes.merge(mutation + " → " + outcome, 1, Integer::sum);
    }
    System.out.println("fuzz " + kind + " (" + CASES + " cases): " + outcomes);
    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CASES);
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
