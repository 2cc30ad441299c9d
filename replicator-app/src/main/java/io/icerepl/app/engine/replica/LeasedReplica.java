package io.icerepl.app.engine.replica;

import io.icerepl.copier.publish.MetadataPublisher;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The one way to write to a replica: its state, its commit records, its metadata versions, its
 * version hint and the deletion of its files. Opened with the table's lease, and every write checks
 * the lease itself right before it is made, so no writer (replication, retention, a pending
 * deletion, promotion, fail-back) can write after another instance took the table over, however
 * long its run took. Reads go through {@link ReplicaFiles}, which writes nothing but a hint it
 * repairs.
 */
public final class LeasedReplica {
  private final ObjectStore store;
  private final ReplicaFiles files;
  private final MetadataPublisher publisher;
  private final String location;
  private final ObjectStore.Lock lease;

  /**
   * @param store the replica's store
   * @param files the reads of that store, sharing their size limit with the writes
   * @param location the replica's table location
   * @param lease the table's lease, held by the caller and closed by it
   */
  public LeasedReplica(
      ObjectStore store, ReplicaFiles files, String location, ObjectStore.Lock lease) {
    this.store = store;
    this.files = files;
    this.publisher = new MetadataPublisher(store);
    this.location = location;
    this.lease = lease;
  }

  public String location() {
    return location;
  }

  /** The lease, for the file copies of a plan, which check it per file. */
  public ObjectStore.Lock lease() {
    return lease;
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
   * Writes the replicator's state.
   *
   * @param why what the state records, for the message should the lease be lost ("record the
   *     promotion")
   */
  public void writeState(ReplicaState state, String why) throws IOException {
    lease.checkHeld(why);
    files.writeState(location, state);
  }

  /**
   * Records the commit of {@code version} in the state, before it is published (see {@link
   * ReplicaFiles#recordCommit(String, ReplicaState, Optional, long, TableMetadata)}).
   */
  public ReplicaFiles.RecordedCommit recordCommit(
      ReplicaState state, Optional<ReplicaHead> previous, long version, TableMetadata metadata)
      throws IOException {
    lease.checkHeld("commit replica version " + version);
    return files.recordCommit(location, state, previous, version, metadata);
  }

  /** As above, onto the state as the store holds it now. */
  public TableMetadata recordCommit(
      Optional<ReplicaHead> previous, long version, TableMetadata metadata) throws IOException {
    return recordCommit(files.state(location), previous, version, metadata).metadata();
  }

  /**
   * Publishes {@code metadata} as version {@code version}, streamed, then its hint.
   *
   * @param table how the table is named in messages
   * @return the published file
   */
  public String publish(String table, long version, TableMetadata metadata) throws IOException {
    lease.checkHeld("publish replica version " + version);
    return publisher.publish(
        table, location, version, out -> TableMetadataParser.write(metadata, out));
  }

  /** Points the version hint at {@code version}. */
  public void writeVersionHint(long version) throws IOException {
    lease.checkHeld("write the version hint");
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
   * Deletes {@code paths} in one request, under the lease.
   *
   * @param why what is deleted, for the message
   * @throws IllegalStateException, deleting nothing, when a path lies outside the {@link #domain}
   */
  public void deleteAll(List<String> paths, String why) throws IOException {
    domain().checkDeletes(paths);
    lease.checkHeld(why);
    store.deleteAll(paths);
  }
}
