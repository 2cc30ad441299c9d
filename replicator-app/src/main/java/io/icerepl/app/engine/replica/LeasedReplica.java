package io.icerepl.app.engine.replica;

import io.icerepl.copier.copy.PlanExecutor;
import io.icerepl.copier.publish.MetadataPublisher;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStore.ObjectVersion;
import io.icerepl.copier.store.ObjectStore.VersionedObject;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.TableBusyException;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.state.FencedState;
import io.icerepl.merge.state.ReplicaState;
import io.icerepl.merge.state.ReplicaStateParser;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way to write to a replica: its state, its commit records, its metadata versions, its
 * version hint and the deletion of its files. Opened with the table's lease, right after it was
 * taken, and every write is conditional on what it replaces, decided by the store itself: the state
 * on the version this run read under the lease or wrote last ({@link ObjectStore#replaceIf}), a
 * metadata version on its absence, the hint on the hint it replaces (it never moves back). A run
 * paused for any time between its lease check and its write, whose lease another instance took over
 * meanwhile, therefore changes nothing: its write is refused and reported as the lease lost ({@link
 * TableBusyException}), and the replica stays as the run that holds it now left it.
 *
 * <p>Each run that writes the state records its fencing epoch in it: the lease's ({@link
 * ObjectStore.Lock#epoch}), larger than that of every earlier holding, raised above the epoch the
 * state holds when that was written under an older lease. Two runs that read the same state under
 * two holdings of the lease therefore carry different epochs, and a refused run reads the larger
 * epoch of the run that won. Reads go through {@link ReplicaFiles}, which writes nothing but a hint
 * it repairs.
 */
public final class LeasedReplica {
  private static final Logger LOG = LoggerFactory.getLogger(LeasedReplica.class);

  private final ObjectStore store;
  private final ReplicaFiles files;
  private final MetadataPublisher publisher;
  private final String location;
  private final ObjectStore.Lock lease;
  private final String stateFile;

  /**
   * This run's fencing epoch: its lease's, at least one more than the state held when it was read
   * under the lease.
   */
  private final long epoch;

  /** The commit recorded in the state as read under the lease, before this run wrote any. */
  private final ReplicaState.LastCommit inherited;

  /** The state as the store holds it since this run read or wrote it. */
  private ReplicaState state;

  /** The version of that state object; empty while there is none. */
  private Optional<ObjectVersion> stateVersion;

  /**
   * Reads the replica's state and its version once, under the lease: every later state write is
   * conditional on it.
   *
   * @param store the replica's store
   * @param files the reads of that store, sharing their size limit with the writes
   * @param location the replica's table location
   * @param lease the table's lease, held by the caller and closed by it
   */
  public LeasedReplica(
      ObjectStore store, ReplicaFiles files, String location, ObjectStore.Lock lease)
      throws IOException {
    this.store = store;
    this.files = files;
    this.publisher = new MetadataPublisher(store);
    this.location = location;
    this.lease = lease;
    this.stateFile = ReplicaLayout.stateFile(location);
    Optional<VersionedObject> read = store.readVersioned(stateFile);
    FencedState fenced =
        read.map(r -> ReplicaStateParser.readFenced(r.content(), stateFile))
            .orElseGet(() -> new FencedState(ReplicaState.empty(), 0));
    this.state = fenced.state();
    this.stateVersion = read.map(VersionedObject::version);
    long floor = fenced.fencingEpoch() + 1;
    this.epoch = lease.raiseEpoch(floor, "take fencing epoch " + floor);
    this.inherited = fenced.state().lastCommit();
  }

  public String location() {
    return location;
  }

  /** The lease, for the file copies of a plan, which check it per file. */
  public ObjectStore.Lock lease() {
    return lease;
  }

  /**
   * The replica's state as this run read it under the lease, or as it wrote it since: the state
   * every write of this run is conditional on.
   */
  public synchronized ReplicaState state() {
    return state;
  }

  /** The fencing epoch this run writes into the state. */
  public long fencingEpoch() {
    return epoch;
  }

  /**
   * Fails unless the lease is still held. For steps that write elsewhere on the table's behalf (an
   * S3 Batch Operations job); every write to the replica checks it on its own.
   *
   * @param action what the run is about to do, for the message
   */
  public void checkHeld(String action) throws IOException {
    lease.checkHeld(action);
  }

  /**
   * Writes one of the replicator's own files under the replica (an S3 Batch Operations job's
   * manifest or marker), never a table file.
   *
   * @param why what the file records, for the message should the lease be lost
   * @return the bytes written
   */
  public long writeFile(String path, ObjectStore.Writer writer, String why) throws IOException {
    lease.checkHeld(why);
    return store.write(path, writer);
  }

  /**
   * Writes the replicator's state, only over the state this run read or wrote last.
   *
   * @param why what the state records, for the message should the lease be lost ("record the
   *     promotion")
   * @throws TableBusyException when another run replaced the state since: the lease was lost
   */
  public void writeState(ReplicaState next, String why) throws IOException {
    lease.checkHeld(why);
    WritePoints.reached(WritePoints.STATE, location);
    replaceState(next, why);
  }

  /**
   * Records the commit of {@code version} in the state, before it is published (see {@link
   * ReplicaFiles#commitRecord(String, ReplicaState, Optional, long, TableMetadata)}).
   */
  public ReplicaFiles.RecordedCommit recordCommit(
      ReplicaState onto, Optional<ReplicaHead> previous, long version, TableMetadata metadata)
      throws IOException {
    String why = "commit replica version " + version;
    lease.checkHeld(why);
    WritePoints.reached(WritePoints.STATE, location);
    ReplicaFiles.RecordedCommit recorded =
        files.commitRecord(location, onto, previous, version, metadata);
    replaceState(recorded.state(), why);
    return recorded;
  }

  /** As above, onto the state as this run holds it. */
  public TableMetadata recordCommit(
      Optional<ReplicaHead> previous, long version, TableMetadata metadata) throws IOException {
    return recordCommit(state(), previous, version, metadata).metadata();
  }

  /**
   * Publishes {@code metadata} as version {@code version}, streamed, then its hint.
   *
   * @param table how the table is named in messages
   * @return the published file
   * @throws TableBusyException when the version exists because another run took the table over
   */
  public String publish(String table, long version, TableMetadata metadata) throws IOException {
    String why = "publish replica version " + version;
    lease.checkHeld(why);
    WritePoints.reached(WritePoints.PUBLISH, location);
    String file;
    try {
      file =
          publisher.create(
              table, location, version, out -> TableMetadataParser.write(metadata, out));
    } catch (DivergedReplicaException e) {
      throw publishedBeforeThisRun(why, version, e);
    }
    // the hint follows the version it names, without a second lease check: a version published
    // gets its hint, which never moves back
    WritePoints.reached(WritePoints.HINT, location);
    publisher.writeVersionHint(location, version);
    return file;
  }

  /**
   * The version this run was to publish exists. When another run replaced the state meanwhile, it
   * took the table over and published it: the lease was lost. When the version is the commit the
   * state recorded before this run (a run that held the table before, paused between its record and
   * its publish, published it late), the state records that commit again, so the replica stays the
   * replicator's own and the next run goes on from it. Else another writer committed.
   */
  private IOException publishedBeforeThisRun(
      String why, long version, DivergedReplicaException existing) throws IOException {
    if (!stateStillThisRuns()) {
      throw lost(why);
    }
    if (inherited != null && inherited.version() == version) {
      String file = ReplicaLayout.metadataFile(location, version);
      if (files.commitToken(file).equals(Optional.of(inherited.token()))) {
        replaceState(state().withLastCommit(inherited), why);
        throw new TableBusyException(
            "Cannot "
                + why
                + " of table "
                + location
                + ": the run that held the table before this one published it late, as its state"
                + " recorded it; the state records that commit again and the next run goes on"
                + " from it");
      }
    }
    throw existing;
  }

  /** Points the version hint at {@code version}, unless it names a later one already. */
  public void writeVersionHint(long version) throws IOException {
    lease.checkHeld("write the version hint");
    WritePoints.reached(WritePoints.HINT, location);
    publisher.writeVersionHint(location, version);
  }

  /**
   * Where this replica's files may be deleted: under its location (see {@link ReplicaDomain}).
   * Files a replica names elsewhere (an explicit map's target, or another table's folder an earlier
   * release mirrored into) are never its to delete.
   */
  public ReplicaDomain domain() {
    return ReplicaDomain.of(location);
  }

  /**
   * Deletes {@code paths} in one request, under the lease, only while the state is still the one
   * this run read or wrote: the files it deletes are those that state recorded as no longer named.
   *
   * @param why what is deleted, for the message
   * @throws IllegalStateException, deleting nothing, when a path lies outside the {@link #domain}
   */
  public void deleteAll(List<String> paths, String why) throws IOException {
    domain().checkDeletes(paths);
    lease.checkHeld(why);
    WritePoints.reached(WritePoints.DELETE, location);
    if (!stateStillThisRuns()) {
      throw lost(why);
    }
    store.deleteAll(paths);
  }

  /**
   * Removes the files a plan copied for a commit that failed ({@link PlanExecutor.Cleanup}), by
   * {@link #deleteAll}: only while the state is still the one this run read or wrote. Copies are
   * deterministic, so a run that took the table over while this one was paused may have copied and
   * published the very same paths: once the state is another run's, nothing is deleted and the run
   * fails as the lease lost, saying so. Files outside the replica's location (an explicit map's
   * target) are kept, as retention keeps them.
   */
  public void removeFailedCopies(List<String> paths, String why) throws IOException {
    ReplicaDomain domain = domain();
    List<String> outside = domain.outside(paths);
    if (!outside.isEmpty()) {
      LOG.warn(
          "{}: keeps {} files of a failed commit outside its location, such as {}",
          location,
          outside.size(),
          outside.get(0));
    }
    List<String> inside = paths.stream().filter(domain::contains).toList();
    if (inside.isEmpty()) {
      return;
    }
    try {
      deleteAll(inside, why);
    } catch (TableBusyException e) {
      throw new TableBusyException(
          e.getMessage()
              + "; the "
              + inside.size()
              + " files this run copied are kept, since that run may have published the same"
              + " paths");
    }
  }

  private synchronized void replaceState(ReplicaState next, String why) throws IOException {
    byte[] json = ReplicaStateParser.toJson(new FencedState(next, epoch));
    Optional<ObjectVersion> written = store.replaceIf(stateFile, stateVersion, json);
    if (written.isEmpty()) {
      throw lost(why);
    }
    state = next;
    stateVersion = written;
  }

  private boolean stateStillThisRuns() throws IOException {
    Optional<ObjectVersion> now = store.readVersioned(stateFile).map(VersionedObject::version);
    synchronized (this) {
      return now.equals(stateVersion);
    }
  }

  /** The lease lost, as the state tells: the epoch of the run that replaced it. */
  private TableBusyException lost(String why) {
    String by;
    try {
      by =
          store
              .readVersioned(stateFile)
              .map(
                  now ->
                      "the run of fencing epoch "
                          + ReplicaStateParser.readFenced(now.content(), stateFile).fencingEpoch())
              .orElse("a run that removed it");
    } catch (IOException | RuntimeException e) {
      by = "another run (" + e.getMessage() + ")";
    }
    return new TableBusyException(
        "Cannot "
            + why
            + " of table "
            + location
            + ": its state was replaced by "
            + by
            + " since this run (fencing epoch "
            + epoch
            + ") read it; another run holds the table now and this one changes nothing more");
  }
}
