package io.icerepl.app.engine.replica;

import io.icerepl.copier.publish.MetadataPublisher;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.head.SourceHead;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.path.TableLocation;
import io.icerepl.merge.state.ReplicaState;
import io.icerepl.merge.state.ReplicaStateParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Reads what a replica holds, from the replica itself: its current version (as readers resolve it)
 * and the replicator's state beside it. Shared by replication and retention.
 */
public final class ReplicaFiles {
  private final ObjectStore store;
  private final long maxMetadataBytes;
  private final MetadataPublisher publisher;

  public ReplicaFiles(ObjectStore store, long maxMetadataBytes) {
    this.store = store;
    this.maxMetadataBytes = maxMetadataBytes;
    this.publisher = new MetadataPublisher(store);
  }

  /**
   * The replica's current version: the hint, looking past it as readers do, or the newest file. A
   * version published by a run that stopped before its hint gets its hint now.
   *
   * @throws DivergedReplicaException when the location holds a table or a version the replicator
   *     did not write
   */
  public Optional<ReplicaHead> head(String table, String location) throws IOException {
    return head(table, location, Optional.empty());
  }

  /**
   * As {@link #head(String, String)}, taking the content of {@code known} when the current version
   * is still its file: a replica version file is written once and never replaced, so it need not be
   * read again.
   */
  public Optional<ReplicaHead> head(String table, String location, Optional<ReplicaHead> known)
      throws IOException {
    return head(table, location, known, OptionalLong.empty(), () -> state(location));
  }

  /**
   * As {@link #head(String, String, Optional)}, checking the head against {@code state}, the state
   * the caller read under the table's lease, instead of reading the state file again.
   */
  public Optional<ReplicaHead> head(
      String table, String location, Optional<ReplicaHead> known, ReplicaState state)
      throws IOException {
    return head(table, location, known, OptionalLong.empty(), () -> state);
  }

  /**
   * The replica's current version (as {@link #head(String, String, Optional)}) and the state beside
   * it, the state file read once. Read in this order without the lease: a commit made in between
   * records its token in the state before it publishes, so the head read first is the version the
   * state names or the one before it, which the check accepts.
   */
  public Replica read(String table, String location, Optional<ReplicaHead> known)
      throws IOException {
    ReplicaState[] read = new ReplicaState[1];
    Optional<ReplicaHead> head =
        head(
            table,
            location,
            known,
            OptionalLong.empty(),
            () -> {
              read[0] = state(location);
              return read[0];
            });
    return new Replica(head, read[0] != null ? read[0] : state(location));
  }

  /**
   * As {@link #read(String, String, Optional)}, reading the hint and the state on {@code executor}
   * while the metadata folder is listed, instead of one after the other. The order that read relies
   * on no longer holds, so whatever the reads found out of order is judged again in order: a head
   * that does not match the state read beside it, or a hint behind the head, sends the check to the
   * reads one after the other. A head matching the state is the replicator's own whenever the state
   * was read: only the replicator writes a commit's token.
   */
  public Replica read(String table, String location, Optional<ReplicaHead> known, Executor executor)
      throws IOException {
    CompletableFuture<Optional<String>> hint =
        CompletableFuture.supplyAsync(() -> unchecked(() -> readHintIfAny(location)), executor);
    CompletableFuture<ReplicaState> state =
        CompletableFuture.supplyAsync(() -> unchecked(() -> state(location)), executor);
    try {
      Optional<ReplicaHead> head =
          head(
              table,
              location,
              known,
              OptionalLong.empty(),
              () -> join(state),
              names -> {
                Optional<String> read = join(hint);
                // written after it was read, before the listing: read it now
                return read.isPresent() ? read : Optional.of(readText(store, hintFile(location)));
              },
              false);
      return new Replica(head, join(state));
    } catch (DivergedReplicaException | HintBehind e) {
      return read(table, location, known);
    }
  }

  /** The hint read beside the listing was behind the version found: judged again in order. */
  private static final class HintBehind extends RuntimeException {
    HintBehind() {
      super(null, null, false, false);
    }
  }

  private Optional<String> readHintIfAny(String location) throws IOException {
    try {
      return Optional.of(readText(store, hintFile(location)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  private static String hintFile(String location) {
    return ReplicaLayout.versionHintFile(location);
  }

  @FunctionalInterface
  private interface IoSupplier<T> {
    T get() throws IOException;
  }

  private static <T> T unchecked(IoSupplier<T> read) {
    try {
      return read.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The read's own exception, as the same read made on this thread would have thrown it. */
  private static <T> T join(CompletableFuture<T> read) throws IOException {
    try {
      return read.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** A replica's current version, if any, and the replicator's state beside it. */
  public record Replica(Optional<ReplicaHead> head, ReplicaState state) {}

  /**
   * As {@link #head(String, String)} for a promoted replica: its versions from the promoted one on
   * were written by the table's writers, not by the replicator, so they carry no commit token to
   * check. Every other check stands.
   */
  public Optional<ReplicaHead> promotedHead(String table, String location, Promotion promotion)
      throws IOException {
    return head(
        table,
        location,
        Optional.empty(),
        OptionalLong.of(promotion.replicaVersion()),
        () -> state(location));
  }

  /**
   * As {@link #promotedHead(String, String, Promotion)} for a replica registered in a catalog:
   * writers commit through its entry, writing the catalog's own {@code <V>-<uuid>.metadata.json}
   * files and leaving the folder's version hint at the promoted version, so the entry names the
   * table's current version. The version number stays the folder's, which the replicator's next
   * commit follows.
   *
   * @param entryFile the metadata file the replica's catalog entry names, if it has one
   * @throws DivergedReplicaException when the entry names a file outside the replica's metadata
   *     folder: not this table's writers' commit
   */
  public Optional<ReplicaHead> promotedHead(
      String table, String location, Promotion promotion, Optional<String> entryFile)
      throws IOException {
    Optional<ReplicaHead> folder = promotedHead(table, location, promotion);
    if (entryFile.isEmpty()
        || folder.isEmpty()
        || MetadataFileNames.fileName(entryFile.get())
            .equals(MetadataFileNames.fileName(folder.get().file()))) {
      return folder;
    }
    String metadataFolder = ReplicaLayout.metadataFolder(location);
    if (!TableLocation.of(metadataFolder).holds(entryFile.get())) {
      throw new DivergedReplicaException(
          "Cannot replicate table "
              + table
              + " into "
              + location
              + ": its catalog entry names "
              + entryFile.get()
              + ", outside its metadata folder "
              + metadataFolder
              + "; it is left alone");
    }
    String file = TableLayout.join(metadataFolder, MetadataFileNames.fileName(entryFile.get()));
    return Optional.of(
        new ReplicaHead(folder.get().version(), file, readMetadata(store, file, maxMetadataBytes)));
  }

  /**
   * @param writersFrom the first version writers other than the replicator may have written
   * @param state the state the head is checked against, read only when needed
   */
  private Optional<ReplicaHead> head(
      String table,
      String location,
      Optional<ReplicaHead> known,
      OptionalLong writersFrom,
      StateRead state)
      throws IOException {
    return head(
        table,
        location,
        known,
        writersFrom,
        state,
        names -> Optional.of(readText(store, hintFile(location))),
        true);
  }

  /**
   * @param hintRead the hint, when the listing names one
   * @param repairHint whether a hint behind the head is written anew; else {@link HintBehind}
   */
  private Optional<ReplicaHead> head(
      String table,
      String location,
      Optional<ReplicaHead> known,
      OptionalLong writersFrom,
      StateRead state,
      HintRead hintRead,
      boolean repairHint)
      throws IOException {
    String folder = ReplicaLayout.metadataFolder(location);
    List<String> names = store.list(folder);
    if (names.stream().noneMatch(MetadataFileNames::isMetadataFile)) {
      return Optional.empty();
    }
    Optional<String> hint = Optional.empty();
    if (names.contains(TableLayout.VERSION_HINT)) {
      hint = hintRead.read(names);
    }
    String name = SourceHead.resolve(folder, names, hint).orElseThrow();
    OptionalLong version = MetadataFileNames.version(name);
    String file = TableLayout.join(folder, name);
    Optional<TableMetadata> remembered =
        known.filter(k -> k.file().equals(file)).map(ReplicaHead::metadata);
    TableMetadata readFresh =
        remembered.isPresent() ? null : readMetadata(store, file, maxMetadataBytes);
    TableMetadata metadata = remembered.orElse(readFresh);
    ReplicaHead head = new ReplicaHead(version.orElseThrow(), file, metadata);
    if (head.lastSourceFile().isEmpty()
        || !name.equals(ReplicaLayout.metadataFileName(version.getAsLong()))) {
      throw new DivergedReplicaException(
          "Cannot replicate table "
              + table
              + " into "
              + location
              + ": it already holds a table"
              + " the replicator did not write ("
              + file
              + ")");
    }
    if (writersFrom.isEmpty() || head.version() < writersFrom.getAsLong()) {
      ReplicaState.LastCommit last = state.read().lastCommit();
      try {
        checkLastCommit(table, location, head, last);
      } catch (DivergedReplicaException e) {
        if (remembered.isEmpty()) {
          throw e;
        }
        // the content known from before is not the file's any more (the replica was removed and
        // written again since): judge the file itself
        head = new ReplicaHead(head.version(), file, readMetadata(store, file, maxMetadataBytes));
        checkLastCommit(table, location, head, last);
      }
    }
    if (!hint.equals(Optional.of(Long.toString(head.version())))) {
      if (!repairHint) {
        throw new HintBehind(); // perhaps only read before the version's run wrote it
      }
      // an earlier run published this version and stopped before the hint: finish that commit
      publisher.writeVersionHint(location, head.version());
    }
    return Optional.of(head);
  }

  /**
   * The head must be the version the replicator committed last, or the one before it when that
   * commit stopped before publishing: a version written behind its back copies the table's
   * properties but cannot carry the token of a commit not made yet.
   */
  private static void checkLastCommit(
      String table, String location, ReplicaHead head, ReplicaState.LastCommit last) {
    if (last == null) {
      return; // a replica from before commit tokens
    }
    String token = head.metadata().properties().get(ReplicaProperties.COMMIT_TOKEN);
    boolean published = head.version() == last.version() && last.token().equals(token);
    boolean notYetPublished =
        head.version() == last.version() - 1 && Objects.equals(last.previousToken(), token);
    if (!published && !notYetPublished) {
      throw new DivergedReplicaException(
          "Cannot replicate table "
              + table
              + " into "
              + location
              + ": its current metadata "
              + head.file()
              + " is not the version the replicator committed last (v"
              + last.version()
              + "); the replica was"
              + " changed behind its back and is left alone");
    }
  }

  /**
   * The record of the commit about to be published, onto {@code state}, the state the caller read
   * under the table's lease and kept since, and its metadata with the commit's token. Recorded
   * first, by {@link LeasedReplica}: the published file then always matches the record, or the one
   * before it.
   *
   * @return the metadata to publish and the state to write
   */
  RecordedCommit commitRecord(
      String location,
      ReplicaState state,
      Optional<ReplicaHead> previous,
      long version,
      TableMetadata metadata) {
    String token = UUID.randomUUID().toString();
    String previousToken =
        previous
            .map(h -> h.metadata().properties().get(ReplicaProperties.COMMIT_TOKEN))
            .orElse(null);
    ReplicaState recorded =
        state.withLastCommit(new ReplicaState.LastCommit(version, token, previousToken));
    TableMetadata.Builder builder = metadata.toBuilder();
    builder
        .fields()
        .with(io.icerepl.merge.model.TableMetadataFields.PROPERTIES)
        .put(ReplicaProperties.COMMIT_TOKEN, token);
    return new RecordedCommit(builder.build("replica " + location), recorded);
  }

  /** The commit token of a published replica version, if it carries one. */
  Optional<String> commitToken(String file) {
    return Optional.ofNullable(
        readMetadata(store, file, maxMetadataBytes)
            .properties()
            .get(ReplicaProperties.COMMIT_TOKEN));
  }

  /** A commit recorded in the state: the metadata to publish, and the state as written. */
  public record RecordedCommit(TableMetadata metadata, ReplicaState state) {}

  @FunctionalInterface
  private interface StateRead {
    ReplicaState read() throws IOException;
  }

  @FunctionalInterface
  private interface HintRead {
    Optional<String> read(List<String> names) throws IOException;
  }

  public ReplicaState state(String location) throws IOException {
    String file = ReplicaLayout.stateFile(location);
    try (InputStream in = store.open(file)) {
      return ReplicaStateParser.fromJson(in.readAllBytes(), file);
    } catch (NoSuchFileException e) {
      return ReplicaState.empty();
    }
  }

  /** Reads one metadata file; a missing one is a {@link MissingFileException}. */
  public static TableMetadata readMetadata(ObjectStore store, String file, long maxBytes) {
    try (InputStream in = store.open(file)) {
      return TableMetadataParser.read(in, file, maxBytes);
    } catch (NoSuchFileException e) {
      throw new MissingFileException(
          "Cannot read table metadata " + file + ": it does not exist", file);
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
