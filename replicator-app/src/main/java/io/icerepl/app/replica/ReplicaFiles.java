package io.icerepl.app.replica;

import io.icerepl.copier.commit.MetadataPublisher;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.head.SourceHead;
import io.icerepl.merge.json.TableMetadata;
import io.icerepl.merge.json.TableMetadataParser;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.state.ReplicaState;
import io.icerepl.merge.state.ReplicaStateParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads what a replica holds, from the replica itself: its current version (as readers resolve
 * it) and the replicator's state beside it. Shared by replication and retention.
 */
public final class ReplicaFiles {
  /** Hidden, so no reader takes it for a table file. */
  public static final String STATE_FILE = ".replicator-state.json";

  private final ObjectStore store;
  private final long maxMetadataBytes;
  private final MetadataPublisher publisher;

  public ReplicaFiles(ObjectStore store, long maxMetadataBytes) {
    this.store = store;
    this.maxMetadataBytes = maxMetadataBytes;
    this.publisher = new MetadataPublisher(store);
  }

  /**
   * The replica's current version: the hint, looking past it as readers do, or the newest file.
   * A version published by a run that stopped before its hint gets its hint now.
   *
   * @throws ConflictException when the location holds a table the replicator did not write
   */
  public Optional<ReplicaHead> head(String table, String location) throws IOException {
    String folder = MetadataPublisher.metadataFolder(location);
    List<String> names = store.list(folder);
    if (names.stream().noneMatch(MetadataFileNames::isMetadataFile)) {
      return Optional.empty();
    }
    Optional<String> hint = Optional.empty();
    if (names.contains(MetadataPublisher.VERSION_HINT)) {
      hint = Optional.of(readText(store, TableLayout.join(folder, MetadataPublisher.VERSION_HINT)));
    }
    String name = SourceHead.resolve(folder, names, hint).orElseThrow();
    OptionalLong version = MetadataFileNames.version(name);
    String file = TableLayout.join(folder, name);
    TableMetadata metadata = readMetadata(store, file, maxMetadataBytes);
    ReplicaHead head = new ReplicaHead(version.orElseThrow(), file, metadata);
    if (head.lastSourceFile().isEmpty() || !name.equals(MetadataFileNames.replicaFileName(version.getAsLong()))) {
      throw new ConflictException(
          "Cannot replicate table " + table + " into " + location + ": it already holds a table"
              + " the replicator did not write (" + file + ")");
    }
    if (!hint.equals(Optional.of(Long.toString(head.version())))) {
      // an earlier run published this version and stopped before the hint: finish that commit
      publisher.writeVersionHint(location, head.version());
    }
    return Optional.of(head);
  }

  public ReplicaState state(String location) throws IOException {
    String file = stateFile(location);
    try (InputStream in = store.open(file)) {
      return ReplicaStateParser.fromJson(in.readAllBytes(), file);
    } catch (NoSuchFileException e) {
      return ReplicaState.empty();
    }
  }

  public void writeState(String location, ReplicaState state) throws IOException {
    byte[] json = ReplicaStateParser.toJson(state);
    store.write(stateFile(location), out -> out.write(json));
  }

  private static String stateFile(String location) {
    return TableLayout.join(MetadataPublisher.metadataFolder(location), STATE_FILE);
  }

  /** Reads one metadata file; a missing one is a {@link MissingFileException}. */
  public static TableMetadata readMetadata(ObjectStore store, String file, long maxBytes) {
    try (InputStream in = store.open(file)) {
      return TableMetadataParser.read(in, file, maxBytes);
    } catch (NoSuchFileException e) {
      throw new MissingFileException("Cannot read table metadata " + file + ": it does not exist", file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read table metadata " + file, e);
    }
  }

  /** Reads a small text file such as a version hint. */
  public static String readText(ObjectStore store, String file) throws IOException {
    try (InputStream in = store.open(file)) {
      return new String(in.readNBytes(4096), StandardCharsets.UTF_8).trim();
    }
  }
}
