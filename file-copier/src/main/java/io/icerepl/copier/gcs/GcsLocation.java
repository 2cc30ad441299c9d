package io.icerepl.copier.gcs;

/**
 * A bucket and object name parsed from {@code gs://bucket/name}. GCS has no folders: a folder is
 * the name prefix its objects share, up to a '/'.
 */
public record GcsLocation(String bucket, String name) {

  /**
   * @throws IllegalArgumentException naming {@code path} when it is not {@code gs://bucket/...}
   */
  public static GcsLocation parse(String path) {
    if (!path.startsWith("gs://")) {
      throw new IllegalArgumentException(
          "Cannot use " + path + " as a GCS path: not gs://bucket/name");
    }
    String rest = path.substring("gs://".length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("Cannot use " + path + " as a GCS path: no bucket");
    }
    return new GcsLocation(bucket, slash < 0 ? "" : rest.substring(slash + 1));
  }

  /** The name prefix of the objects directly under this location taken as a folder. */
  String folderPrefix() {
    return name.isEmpty() || name.endsWith("/") ? name : name + "/";
  }

  @Override
  public String toString() {
    return "gs://" + bucket + "/" + name;
  }
}
