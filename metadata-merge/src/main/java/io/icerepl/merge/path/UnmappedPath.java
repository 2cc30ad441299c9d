package io.icerepl.merge.path;

import io.icerepl.merge.error.PathOutsideMappingException;
import java.util.List;
import java.util.Optional;

/**
 * A file a table names that no prefix of its replica's mapping covers: the mirror (see {@link
 * MirrorMapping}) that would cover it, and, when none does, what the error tells the operator to
 * map. Pure: the replica's state and the options are passed in.
 */
public final class UnmappedPath {
  private UnmappedPath() {}

  /**
   * The mirror mapping that would cover the path nothing else did.
   *
   * @param allowedRoots the prefixes the table may name files under; empty: any
   * @param recordedMirror the mirror the replica's state records
   * @param path the path no prefix covered, where known
   * @return none when the replica already has a mirror recorded (it did not cover the path), when
   *     no path is known, or when the two locations imply no mirror holding it
   */
  public static Optional<MirrorMapping.Inferred> mirrorCovering(
      String sourceLocation,
      String targetLocation,
      List<String> allowedRoots,
      List<PathMapping.Prefix> recordedMirror,
      Optional<String> path) {
    if (path.isEmpty() || !recordedMirror.isEmpty()) {
      return Optional.empty();
    }
    return MirrorMapping.infer(sourceLocation, targetLocation, allowedRoots)
        .filter(m -> PathMapping.of(m.prefixes()).covers(path.get()));
  }

  /**
   * The same error, told what declares a prefix when no version of the table's metadata did: a
   * {@code --map} pair for the file's folder, or the mirror a replica location ending in the
   * source's relative path gives.
   *
   * @param allowedRoots the prefixes the table may name files under; empty: any
   */
  public static PathOutsideMappingException withHint(
      PathOutsideMappingException outside,
      String sourceLocation,
      String targetLocation,
      List<String> allowedRoots) {
    return new PathOutsideMappingException(
        outside.path().orElse(null),
        outside.getMessage() + hint(sourceLocation, targetLocation, allowedRoots, outside.path()));
  }

  private static String hint(
      String sourceLocation,
      String targetLocation,
      List<String> allowedRoots,
      Optional<String> outside) {
    if (!allowedRoots.isEmpty()) {
      return "; the table may only name files under "
          + allowedRoots
          + " and the prefixes its target maps";
    }
    String example =
        outside
            .filter(p -> p.lastIndexOf('/') > 0)
            .map(p -> p.substring(0, p.lastIndexOf('/')))
            .map(folder -> folder + "=" + SourcePrefixes.replicaFolderFor(targetLocation, folder))
            .orElse("<source-prefix>=<target-prefix>");
    Optional<MirrorMapping.Inferred> mirror =
        MirrorMapping.infer(sourceLocation, targetLocation, List.of());
    String why =
        mirror.isPresent()
            ? "; no version of the table's metadata declares a prefix holding it, nor does the"
                + " mirror "
                + describe(mirror.get().prefixes())
            : "; no version of the table's metadata declares a prefix holding it";
    return why + ": map one with --map " + example;
  }

  /** Mirror pairs as {@code source -> target}, for messages. */
  public static String describe(List<PathMapping.Prefix> mirror) {
    return String.join(", ", mirror.stream().map(p -> p.source() + " -> " + p.target()).toList());
  }
}
