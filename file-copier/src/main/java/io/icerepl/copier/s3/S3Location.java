package io.icerepl.copier.s3;

import io.icerepl.merge.path.TableLocation;

/** A bucket and key parsed from {@code s3://}, {@code s3a://} or {@code s3n://} (one store). */
public record S3Location(String bucket, String key) {

  public static S3Location parse(String path) {
    int schemeEnd = path.indexOf("://");
    String scheme = schemeEnd < 0 ? "" : path.substring(0, schemeEnd);
    if (!scheme.equals("s3") && !scheme.equals("s3a") && !scheme.equals("s3n")) {
      throw new IllegalArgumentException(
          "Cannot use " + path + " as an S3 path: not s3://bucket/key");
    }
    String rest = path.substring(schemeEnd + 3);
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("Cannot use " + path + " as an S3 path: no bucket");
    }
    return new S3Location(bucket, slash < 0 ? "" : rest.substring(slash + 1));
  }

  /** The key prefix of the objects directly under this location taken as a folder. */
  String folderPrefix() {
    return key.isEmpty() || key.endsWith("/") ? key : key + "/";
  }

  /** One spelling for every scheme alias and trailing slash, so one table has one lock. */
  String canonical() {
    return TableLocation.of(toString()).canonical();
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + key;
  }
}
