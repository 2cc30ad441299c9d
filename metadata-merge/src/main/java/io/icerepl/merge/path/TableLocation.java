package io.icerepl.merge.path;

import java.util.Objects;

/**
 * A table's location as one identity. The same place has many spellings: {@code s3://b/k}, {@code
 * s3a://b/k} and {@code s3n://b/k} (Spark through S3A writes the second where other engines write
 * the first); {@code abfss://c@a.dfs.core.windows.net/k} and {@code
 * wasbs://c@a.blob.core.windows.net/k} (Azure's two endpoints of one account); {@code file:/p},
 * {@code file:///p}, {@code file://localhost/p} and {@code /p}; any of them with trailing slashes.
 * Every decision that asks whether two locations are one table, or one lies inside the other
 * (fail-back onto the promoted table, a target inside its source, a catalog table outside its
 * rule), compares {@link #canonical} forms through this type and never the strings.
 *
 * <p>{@link #spelled} keeps what the user or the metadata wrote: files are named as their table
 * spells them (position deletes match data files by exact string), so the spelling is kept for
 * writing and only the identity is compared.
 */
public final class TableLocation {
  private final String spelled;
  private final String canonical;

  private TableLocation(String spelled, String canonical) {
    this.spelled = spelled;
    this.canonical = canonical;
  }

  /**
   * @throws IllegalArgumentException for a blank location, or one holding a control character (a
   *     line break in a request parameter would forge log lines); the message never repeats it
   */
  public static TableLocation of(String location) {
    Objects.requireNonNull(location, "location");
    if (location.isBlank()) {
      throw new IllegalArgumentException("A table location must not be blank");
    }
    for (int i = 0; i < location.length(); i++) {
      char c = location.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            String.format(
                "A table location must not hold control characters; this one has U+%04X at"
                    + " position %d",
                (int) c, i));
      }
    }
    return new TableLocation(location, canonicalForm(location));
  }

  /** The location as it was written. */
  public String spelled() {
    return spelled;
  }

  /**
   * One spelling per place: {@code s3://b/k} for every S3 alias, {@code abfss://c@a.dfs.…/k} for
   * every Azure one, {@code /p} for local paths, no trailing slash (a bare root stays {@code /} or
   * {@code s3://b}).
   */
  public String canonical() {
    return canonical;
  }

  /** Whether both name the same table. */
  public boolean sameAs(TableLocation other) {
    return canonical.equals(other.canonical);
  }

  /** Whether {@code other} is this location or lies under it. */
  public boolean contains(TableLocation other) {
    return sameAs(other) || other.canonical.startsWith(withSlash(canonical));
  }

  /** Whether either contains the other: two tables that would share files. */
  public boolean overlaps(TableLocation other) {
    return contains(other) || other.contains(this);
  }

  /** Whether {@code path}, in any spelling, is this location or lies under it. */
  public boolean holds(String path) {
    return contains(of(path));
  }

  private static String withSlash(String path) {
    return path.endsWith("/") ? path : path + "/";
  }

  private static String canonicalForm(String location) {
    String canonical = PathMapping.canonical(location);
    int end = canonical.length();
    int floor = canonical.contains("://") ? canonical.indexOf("://") + 3 : 1;
    while (end > floor && canonical.charAt(end - 1) == '/') {
      end--;
    }
    return canonical.substring(0, end);
  }

  /** Equal when {@link #sameAs}: the spelling does not take part. */
  @Override
  public boolean equals(Object o) {
    return o instanceof TableLocation other && sameAs(other);
  }

  @Override
  public int hashCode() {
    return canonical.hashCode();
  }

  /** The spelling, as it was written. */
  @Override
  public String toString() {
    return spelled;
  }
}
