package io.icerepl.merge.path;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.model.TableMetadata;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every source prefix a table has written under, each with its own folder in the replica. A table's
 * {@code location} and {@code write.*.path} properties change over its life, while manifests keep
 * naming files under the old prefixes (EXISTING and DELETED entries, old snapshots), so the mapping
 * is the union of what every version declared, remembered in the replica's state, never rebuilt
 * from one version alone.
 *
 * <p>The first location maps to the replica location. Every other prefix gets a folder of its own,
 * named deterministically from the prefix, so two source prefixes never share a replica folder:
 * {@code <replica>/data/<name>} for data paths and other locations, {@code
 * <replica>/metadata/<name>} for metadata paths. A prefix under one already mapped needs no pair of
 * its own.
 *
 * <p>Explicit prefixes (given by the user) come first and are not remembered. When allowed roots
 * are given, a location or write path outside every one of them is refused: a table's metadata
 * alone must not make the replicator read files outside the table.
 */
public final class SourcePrefixes {
  private static final int NAME_CHARS = 48;

  private final String targetLocation;
  private final List<PathMapping.Prefix> explicit;
  private final List<String> allowedRoots;
  private final List<PathMapping.Prefix> learned;
  private final List<PathMapping.Prefix> mirror;

  private SourcePrefixes(
      String targetLocation,
      List<PathMapping.Prefix> explicit,
      List<String> allowedRoots,
      List<PathMapping.Prefix> learned,
      List<PathMapping.Prefix> mirror) {
    this.targetLocation = Objects.requireNonNull(targetLocation, "targetLocation");
    this.explicit = List.copyOf(explicit);
    this.allowedRoots = List.copyOf(allowedRoots);
    this.learned = List.copyOf(learned);
    this.mirror = List.copyOf(mirror);
  }

  /**
   * @param targetLocation the replica location
   * @param explicit prefixes mapped by configuration, ahead of everything learned
   * @param allowedRoots the prefixes a declared path must lie under; empty: any
   * @param remembered the pairs learned before, from the replica's state
   */
  public static SourcePrefixes of(
      String targetLocation,
      List<PathMapping.Prefix> explicit,
      List<String> allowedRoots,
      List<PathMapping.Prefix> remembered) {
    return new SourcePrefixes(targetLocation, explicit, allowedRoots, remembered, List.of());
  }

  /**
   * With the replica's mirror mapping (see {@link MirrorMapping}), for paths no explicit or learned
   * prefix covers. A prefix a version declares is still learned with its own replica folder: the
   * mirror maps only what nothing declares.
   *
   * @throws BadInputException when a pair places files outside the replica's domain: a mirror an
   *     earlier release recorded (it mirrored the locations' roots, beside the replica), which now
   *     takes an explicit {@code --map}
   */
  public SourcePrefixes withMirror(List<PathMapping.Prefix> pairs) {
    ReplicaDomain domain = domain();
    for (PathMapping.Prefix pair : pairs) {
      if (!domain.contains(pair.target())) {
        throw new BadInputException(
            "Cannot place files of "
                + pair.source()
                + " under "
                + pair.target()
                + " as the mirror mapping in the state of replica "
                + targetLocation
                + " records (an earlier release wrote it): it is outside the replica's location."
                + " Say where they go with --map "
                + pair.source()
                + "="
                + pair.target()
                + " (where earlier runs put them) or --map "
                + pair.source()
                + "="
                + replicaFolderFor(targetLocation, pair.source())
                + " (inside the replica)");
      }
    }
    return new SourcePrefixes(targetLocation, explicit, allowedRoots, learned, pairs);
  }

  /** Where the replica may hold files: its location and the explicit prefixes' targets. */
  public ReplicaDomain domain() {
    return ReplicaDomain.of(targetLocation, explicit);
  }

  /**
   * The explicit pairs, for the replica's state to remember whose files their targets hold (see
   * {@link io.icerepl.merge.state.ReplicaState#mappedPrefixes}).
   */
  public List<PathMapping.Prefix> explicit() {
    return explicit;
  }

  /**
   * The pairs a fail-back from a replica into its original maps by, besides the user's: each pair a
   * user mapped explicitly for the replica's replication ({@link
   * io.icerepl.merge.state.ReplicaState#mappedPrefixes}), turned round, so files under a data root
   * the replica was given return to the original folder they were copied from, and the original's
   * {@code write.data.path} names that folder again rather than a folder of its own for the root.
   * Only pairs from the original's own folders (its location, its write paths) are turned round: a
   * pair that took another table's files never sends files into that table.
   *
   * @param mapped the replica's recorded explicit pairs
   * @param original the original's metadata, whose folders files may return to
   */
  public static List<PathMapping.Prefix> returning(
      List<PathMapping.Prefix> mapped, TableMetadata original) {
    List<TableLocation> own = new ArrayList<>();
    own.add(TableLocation.of(original.location()));
    Map<String, String> properties = original.properties();
    for (String property : TableLayout.DATA_PATH_PROPERTIES) {
      ownFolder(properties.get(property)).ifPresent(own::add);
    }
    ownFolder(properties.get(TableLayout.METADATA_PATH_PROPERTY)).ifPresent(own::add);
    List<PathMapping.Prefix> returning = new ArrayList<>();
    for (PathMapping.Prefix pair : mapped) {
      TableLocation from = TableLocation.of(pair.source());
      if (own.stream().anyMatch(folder -> folder.contains(from))) {
        returning.add(new PathMapping.Prefix(pair.target(), pair.source()));
      }
    }
    return returning;
  }

  private static java.util.Optional<TableLocation> ownFolder(String path) {
    return path == null || path.isBlank()
        ? java.util.Optional.empty()
        : java.util.Optional.of(TableLocation.of(path));
  }

  /** The learned pairs, to remember in the replica's state. */
  public List<PathMapping.Prefix> learned() {
    return learned;
  }

  /**
   * The mapping of every explicit, learned and mirrored prefix; the longest matching one decides,
   * and the mirror's roots are shorter than every prefix under them.
   *
   * @throws BadInputException when a pair would place files outside the replica's {@link #domain}
   */
  public PathMapping mapping() {
    return placement().mapping();
  }

  /**
   * {@link #mapping}, confined to the replica's {@link #domain}: what the copier places files by.
   */
  public ReplicaDomain.Placement placement() {
    List<PathMapping.Prefix> all = new ArrayList<>(explicit);
    all.addAll(learned);
    all.addAll(mirror);
    return domain().confine(PathMapping.of(all));
  }

  /** The mapping of what configuration and metadata declared, without the mirror. */
  private PathMapping declared() {
    List<PathMapping.Prefix> all = new ArrayList<>(explicit);
    all.addAll(learned);
    return PathMapping.of(all);
  }

  /**
   * With the location and write paths one metadata version declares.
   *
   * @param metadataFile where the version was read, for messages
   * @throws PathOutsideMappingException when allowed roots are given and a declared path lies
   *     outside all of them
   */
  public SourcePrefixes learn(TableMetadata version, String metadataFile) {
    return learn(version, metadataFile, true);
  }

  /**
   * As {@link #learn}, for an earlier version read only to learn what the table wrote under (a
   * backfill, or versions skipped): a prefix outside the allowed roots is passed over, not refused;
   * the files still named under it fail where they are named.
   */
  public SourcePrefixes learnEarlier(TableMetadata version, String metadataFile) {
    return learn(version, metadataFile, false).learnFolderOf(metadataFile);
  }

  private SourcePrefixes learn(TableMetadata version, String metadataFile, boolean strict) {
    SourcePrefixes result = this;
    result = result.add(version.location(), "location", metadataFile, Kind.LOCATION, strict);
    Map<String, String> properties = version.properties();
    for (String property : TableLayout.DATA_PATH_PROPERTIES) {
      result = result.add(properties.get(property), property, metadataFile, Kind.DATA, strict);
    }
    String metadataPath = TableLayout.METADATA_PATH_PROPERTY;
    return result.add(
        properties.get(metadataPath), metadataPath, metadataFile, Kind.METADATA, strict);
  }

  /**
   * With the folder of a metadata file the source's {@code metadata-log} names: the table wrote
   * metadata there, even when that file is gone. Outside the allowed roots it is not learned (its
   * files then fail where they are named).
   */
  public SourcePrefixes learnFolderOf(String metadataFile) {
    int slash = metadataFile.lastIndexOf('/');
    if (slash <= 0) {
      return this;
    }
    return add(metadataFile.substring(0, slash), "folder", metadataFile, Kind.METADATA, false);
  }

  /**
   * With the layout of replicas made before prefixes were remembered: the location to the replica
   * location, data paths outside it to its {@code data} folder, a metadata path to its {@code
   * metadata} folder. Keeps the files those replicas already hold where they are.
   */
  public SourcePrefixes learnFormerLayout(TableMetadata version) {
    List<PathMapping.Prefix> more = new ArrayList<>(learned);
    PathMapping current = declared();
    for (PathMapping.Prefix prefix :
        TableLayout.mapping(version, targetLocation, List.of()).prefixes()) {
      if (!current.covers(prefix.source()) && allowed(prefix.source())) {
        more.add(prefix);
      }
    }
    return new SourcePrefixes(targetLocation, explicit, allowedRoots, more, mirror);
  }

  private enum Kind {
    LOCATION,
    DATA,
    METADATA
  }

  private SourcePrefixes add(
      String prefix, String declaredAs, String metadataFile, Kind kind, boolean strict) {
    if (prefix == null
        || prefix.isBlank()
        || declared().covers(prefix)
        || (!strict && !allowed(prefix))) {
      return this;
    }
    if (!allowed(prefix)) {
      throw new PathOutsideMappingException(
          prefix,
          "Cannot map path "
              + prefix
              + " ("
              + declaredAs
              + " in table metadata "
              + metadataFile
              + "): it is outside the mapping");
    }
    List<PathMapping.Prefix> more = new ArrayList<>(learned);
    more.add(new PathMapping.Prefix(prefix, targetOf(prefix, kind)));
    return new SourcePrefixes(targetLocation, explicit, allowedRoots, more, mirror);
  }

  private String targetOf(String prefix, Kind kind) {
    boolean replicaLocationTaken =
        learned.stream()
            .anyMatch(p -> TableLocation.of(p.target()).sameAs(TableLocation.of(targetLocation)));
    if (kind == Kind.LOCATION && !replicaLocationTaken) {
      return targetLocation;
    }
    String folder = kind == Kind.METADATA ? TableLayout.METADATA_FOLDER : TableLayout.DATA_FOLDER;
    return TableLayout.join(TableLayout.join(targetLocation, folder), folderName(prefix));
  }

  /**
   * The replica folder a source prefix outside the table's locations is given, for a {@code --map}
   * pair a user may write: {@code <replica>/data/<name>}.
   */
  public static String replicaFolderFor(String targetLocation, String prefix) {
    return TableLayout.join(
        TableLayout.join(targetLocation, TableLayout.DATA_FOLDER), folderName(prefix));
  }

  private boolean allowed(String path) {
    return allowedRoots.isEmpty()
        || PathMapping.of(allowedRoots.stream().map(r -> new PathMapping.Prefix(r, r)).toList())
            .covers(path);
  }

  /**
   * A folder name for a source prefix: its readable tail, then a hash of the whole prefix, so
   * different prefixes never get the same name (e.g. {@code s3://b/ext/orders} → {@code
   * b-ext-orders-88f616ca}).
   */
  static String folderName(String prefix) {
    String canonical = PathMapping.canonical(prefix).replaceAll("/+$", "");
    String path =
        canonical.contains("://") ? canonical.substring(canonical.indexOf("://") + 3) : canonical;
    String readable = path.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^[-.]+|-+$", "");
    if (readable.length() > NAME_CHARS) {
      readable = readable.substring(readable.length() - NAME_CHARS).replaceAll("^[-.]+", "");
    }
    String hash = sha256(canonical).substring(0, 8);
    return readable.isEmpty() ? hash : readable + "-" + hash;
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
