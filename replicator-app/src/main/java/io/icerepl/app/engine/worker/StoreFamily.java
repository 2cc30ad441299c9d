package io.icerepl.app.engine.worker;

import java.util.List;
import java.util.Optional;

/**
 * The object stores a location can be on, each with the schemes that name its objects. The one
 * table of which scheme goes where; {@code file:} and plain paths, absolute or relative, are local
 * files and belong to none of these.
 */
public enum StoreFamily {
  /** Amazon S3 and S3-compatible servers: {@code s3a://} and {@code s3n://} are Hadoop's names. */
  S3(List.of("s3://", "s3a://", "s3n://")),
  /**
   * Azure Blob Storage and ADLS Gen2, which serves the Blob API too: {@code abfss://} and {@code
   * abfs://} name its DFS endpoint, {@code wasbs://} and {@code wasb://} its Blob endpoint.
   */
  AZURE(List.of("abfss://", "abfs://", "wasbs://", "wasb://")),
  /** Google Cloud Storage. */
  GCS(List.of("gs://"));

  private final List<String> schemes;

  StoreFamily(List<String> schemes) {
    this.schemes = schemes;
  }

  /** The family whose scheme {@code location} starts with, empty for local files. */
  public static Optional<StoreFamily> of(String location) {
    for (StoreFamily family : values()) {
      if (family.schemes.stream().anyMatch(location::startsWith)) {
        return Optional.of(family);
      }
    }
    return Optional.empty();
  }

  /** Every scheme of every family and the local forms, for a message that lists what is served. */
  public static String supported() {
    StringBuilder all = new StringBuilder();
    for (StoreFamily family : values()) {
      family.schemes.forEach(s -> all.append(s).append(", "));
    }
    return all.append("file: and plain paths").toString();
  }
}
