package io.icerepl.app.scenario;

import io.icerepl.app.engine.catalog.TablePaths;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;

/**
 * A replica on an object store read back through the store's own Iceberg FileIO: the table its
 * version hint names, and what in it differs from the source it was replicated from.
 */
public final class ReplicaReadBack {
  private ReplicaReadBack() {}

  /** The current metadata file of the path-based table at {@code location}, by its version hint. */
  public static String metadataFile(FileIO io, String location) {
    return location
        + "/metadata/v"
        + read(io, location + "/metadata/version-hint.text").trim()
        + ".metadata.json";
  }

  /** The table at {@code location} as a reader opening its current metadata file sees it. */
  public static Table table(FileIO io, String location) {
    String metadataFile = metadataFile(io, location);
    return new BaseTable(new StaticTableOperations(metadataFile, io), metadataFile);
  }

  /**
   * What the replica at {@code target} reads differently from {@code expected} at every snapshot
   * and ref, every file it names outside {@code target}, and its metadata naming {@code
   * sourceLocation}: empty for a faithful replica.
   */
  public static List<String> problems(
      FileIO io, ScenarioExpectations expected, String sourceLocation, String target) {
    String metadataFile = metadataFile(io, target);
    Table replica = new BaseTable(new StaticTableOperations(metadataFile, io), "replica");
    List<String> problems = new ArrayList<>(new ReplicaVerifier().readProblems(expected, replica));
    problems.addAll(TablePaths.outside(replica, io, target));
    if (read(io, metadataFile).contains(sourceLocation)) {
      problems.add(metadataFile + " names the source's location " + sourceLocation);
    }
    return problems;
  }

  /** The object at {@code path} as UTF-8 text. */
  public static String read(FileIO io, String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
