package io.icerepl.app.engine.catalog;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.path.TableLocation;
import io.icerepl.merge.state.ReplicaStateParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;

/**
 * The replica's published versions ({@code metadata/v<N>.metadata.json}) as a catalog entry is
 * judged against them: which version a file is, whether a table's metadata is the replicator's.
 */
final class ReplicaVersions {
  private final ObjectStore target;

  ReplicaVersions(ObjectStore target) {
    this.target = target;
  }

  /** A replica version: its number, its file and its content. */
  record Version(long number, String file, TableMetadata metadata) {}

  /**
   * The version number of {@code file} when it is one of the replica's version files ({@code
   * v<N>.metadata.json} in its metadata folder, in any spelling of the location); empty otherwise.
   */
  static OptionalLong number(String location, String file) {
    String name = MetadataFileNames.fileName(file);
    OptionalLong number = MetadataFileNames.version(name);
    boolean inFolder = same(file, ReplicaLayout.metadataFolder(location) + "/" + name);
    if (!inFolder
        || number.isEmpty()
        || !name.equals(ReplicaLayout.metadataFileName(number.getAsLong()))) {
      return OptionalLong.empty();
    }
    return number;
  }

  /** Whether two spellings name the same file or location. */
  static boolean same(String a, String b) {
    return TableLocation.of(a).sameAs(TableLocation.of(b));
  }

  /**
   * Whether {@code metadata} is a replica commit at {@code location}: the replicator's properties
   * travel in every version it writes, and a catalog's own commit on top of one keeps them.
   */
  static boolean isReplica(String location, TableMetadata metadata) {
    return same(location, metadata.location())
        && "true".equals(metadata.properties().get(ReplicaProperties.READ_ONLY))
        && metadata.properties().containsKey(ReplicaProperties.SOURCE_METADATA_FILE)
        && metadata.properties().containsKey(ReplicaProperties.COMMIT_TOKEN);
  }

  /** Reads a replica metadata file from the target store; empty when it does not exist. */
  Optional<TableMetadata> read(String file) {
    try (InputStream in = target.open(file)) {
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return Optional.of(TableMetadataParser.fromJson(file, json));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read replica metadata " + file, e);
    }
  }

  /** Reads a replica metadata file that must exist: the one just published. */
  TableMetadata readPublished(String file) {
    return read(file)
        .orElseThrow(
            () ->
                new MissingFileException(
                    "Cannot read replica metadata " + file + ": it does not exist", file));
  }

  /**
   * The replica version carrying {@code commitToken}, looked for from {@code current} back through
   * its metadata-log and forward through the versions published after it.
   *
   * @return the version, or empty when no version within reach carries the token
   */
  Optional<Version> withToken(String location, Version current, String commitToken) {
    if (Objects.equals(token(current.metadata()), commitToken)) {
      return Optional.of(current);
    }
    List<TableMetadata.MetadataLogEntry> log = current.metadata().previousFiles();
    for (int i = log.size() - 1; i >= 0; i--) {
      String file = log.get(i).file();
      OptionalLong number = number(location, file);
      Optional<TableMetadata> older = number.isPresent() ? read(file) : Optional.empty();
      if (older.isPresent() && Objects.equals(token(older.get()), commitToken)) {
        return Optional.of(new Version(number.getAsLong(), file, older.get()));
      }
    }
    for (long n = current.number() + 1; ; n++) {
      String file = ReplicaLayout.metadataFile(location, n);
      Optional<TableMetadata> newer = read(file);
      if (newer.isEmpty()) {
        return Optional.empty();
      }
      if (Objects.equals(token(newer.get()), commitToken)) {
        return Optional.of(new Version(n, file, newer.get()));
      }
    }
  }

  /**
   * The replication groups' cut tags the replica's state records ({@code cutTags}: name → snapshot
   * id), empty when it has no state. The state records a tag before any version carrying it is
   * published, so every published version's cut tags are among them, save those dropped since.
   */
  Map<String, Long> recordedCutTags(String location) {
    String file = ReplicaLayout.stateFile(location);
    try (InputStream in = target.open(file)) {
      return ReplicaStateParser.fromJson(in.readAllBytes(), file).cutTags();
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read replica state " + file, e);
    }
  }

  /** A version's refs as names → snapshot ids. */
  static Map<String, Long> refs(TableMetadata metadata) {
    Map<String, Long> refs = new HashMap<>();
    metadata.refs().forEach((name, ref) -> refs.put(name, ref.snapshotId()));
    return refs;
  }

  static String token(TableMetadata metadata) {
    return metadata.properties().get(ReplicaProperties.COMMIT_TOKEN);
  }
}
