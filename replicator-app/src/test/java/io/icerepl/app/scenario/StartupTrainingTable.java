package io.icerepl.app.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Writes the source table the build's class-data-sharing training run replicates ({@code mvn
 * package}, see the pom): a real table with position and equality deletes in Parquet and Avro, so
 * the archive holds the classes a backfill with a delete rewrite loads, at {@code <folder>/source}.
 */
public final class StartupTrainingTable {
  private StartupTrainingTable() {}

  /**
   * {@code args[0]}: the folder to write the table in (as {@code <folder>/source}), emptied first
   * so every build trains on a new table and its first replication.
   */
  public static void main(String[] args) throws IOException {
    Path folder = Path.of(args[0]);
    if (Files.exists(folder)) {
      try (Stream<Path> walk = Files.walk(folder)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Scenario.ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY.write(folder);
  }
}
