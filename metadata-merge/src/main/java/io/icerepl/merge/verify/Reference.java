package io.icerepl.merge.verify;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A path a replica file names, with what it is, who names it and the length recorded for it.
 *
 * @param noun what the path is, e.g. "manifest list", "data file"
 * @param path the path as written
 * @param length the recorded length in bytes, empty when the naming file records none
 * @param namedBy what names the path, e.g. "snapshot 3", "manifest s3://b/t/metadata/m0.avro"
 */
public record Reference(String noun, String path, OptionalLong length, String namedBy) {
  public Reference {
    Objects.requireNonNull(noun, "noun");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(length, "length");
    Objects.requireNonNull(namedBy, "namedBy");
  }

  /** A path with no recorded length. */
  public static Reference of(String noun, String path, String namedBy) {
    return new Reference(noun, path, OptionalLong.empty(), namedBy);
  }

  /** The problem line for this path: {@code <noun> <path> (<named by>): <what is wrong>}. */
  public String problem(String what) {
    return noun + " " + path + " (" + namedBy + "): " + what;
  }
}
