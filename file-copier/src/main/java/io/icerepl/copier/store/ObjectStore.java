package io.icerepl.copier.store;

import io.icerepl.merge.io.SeekableInput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The few operations the replicator needs from a file system or object store. Paths are the strings
 * Iceberg metadata holds ({@code file:/…}, {@code /…}, later {@code s3://…}).
 *
 * <p>Every write is all or nothing: a reader (or a rerun after a crash) either finds the complete
 * object or none, which is what lets "the target already has it" decide what is left to do.
 */
public interface ObjectStore {

  /** The object's length, empty when it does not exist. */
  OptionalLong length(String path) throws IOException;

  /**
   * The object's length and the checksums the store keeps of its whole content, empty when it does
   * not exist. A store that keeps none gives the length alone.
   */
  default Optional<ObjectInfo> info(String path) throws IOException {
    OptionalLong length = length(path);
    return length.isPresent()
        ? Optional.of(new ObjectInfo(length.getAsLong(), Map.of()))
        : Optional.empty();
  }

  /** Opens an object for streaming; {@link java.nio.file.NoSuchFileException} when absent. */
  InputStream open(String path) throws IOException;

  /** Opens an object for random access; {@link java.nio.file.NoSuchFileException} when absent. */
  SeekableInput openSeekable(String path) throws IOException;

  /** Writes an object from what {@code writer} produces, replacing any object there. */
  long write(String path, Writer writer) throws IOException;

  /**
   * Creates an object only if none exists, complete in one step.
   *
   * @return false when an object already existed (another writer won); nothing was changed
   */
  boolean createIfAbsent(String path, byte[] content) throws IOException;

  /**
   * As {@link #createIfAbsent(String, byte[])}, from what {@code writer} produces. This default
   * holds the content in memory; a store that can stage it elsewhere streams it, so a metadata file
   * larger than the heap allows can be published.
   */
  default boolean createIfAbsent(String path, Writer writer) throws IOException {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    writer.writeTo(content);
    return createIfAbsent(path, content.toByteArray());
  }

  /**
   * Reads a small object (a state file, a version hint) together with the version of exactly those
   * bytes, in one read; empty when it does not exist. The version is what {@link #replaceIf} is
   * conditional on.
   */
  Optional<VersionedObject> readVersioned(String path) throws IOException;

  /**
   * Writes {@code content} only while the object is still at {@code expected}: the version read
   * before ({@link #readVersioned}) or written last by the caller, or empty for "no object there".
   * The store itself decides (S3: {@code If-Match} on the ETag, {@code If-None-Match: *} for none;
   * local files: a compare of the content's digest and a rename under a file lock every process
   * takes), so a writer paused between its check and its write, or one that lost the table's lease
   * meanwhile, cannot replace what another writer put there since.
   *
   * @return the new version, or empty when the object was no longer at {@code expected}; then
   *     nothing was changed
   */
  Optional<ObjectVersion> replaceIf(String path, Optional<ObjectVersion> expected, byte[] content)
      throws IOException;

  /**
   * Copies an object byte for byte from {@code source} (which may be this store), replacing. The
   * length the table's metadata records is trusted instead of asked for: it picks a single request
   * or a multipart copy, and no request checks the source first.
   *
   * @param recordedLength the source object's length as its parent records it, -1 if unknown
   * @return the copy's length when the copy itself counted it (streamed, or copied locally); empty
   *     after a copy inside the store, which copies the source object as it is without telling its
   *     length
   * @throws java.nio.file.NoSuchFileException when the source object is missing
   */
  OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException;

  /**
   * Fails unless {@code path}, with every symbolic link on its way resolved, still lies under
   * {@code root} resolved alike: a source file is confined to its table's prefix by where it really
   * is, not by how its path is spelled. Object stores have no links, so there is nothing to check.
   *
   * @throws io.icerepl.merge.error.BadInputException naming the file when it resolves elsewhere
   */
  default void checkResolvesUnder(String path, String root) throws IOException {}

  /**
   * Deletes the object only while it is still at {@code expected} (S3: {@code If-Match} on the
   * ETag; Azure: {@code If-Match}; GCS: {@code ifGenerationMatch}), so that a lease released after
   * another run took it over is left to that run.
   *
   * @return false when the object was no longer at {@code expected}, or was gone; then nothing was
   *     changed
   */
  default boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    throw new UnsupportedOperationException("deleteIf is not supported by " + getClass());
  }

  /** Names (not paths) of the objects directly under a folder, empty when there is none. */
  List<String> list(String folder) throws IOException;

  /**
   * The objects directly under a folder with when each was last written, by name; empty when there
   * is none. A new metadata file is only a candidate until it is old enough to trust.
   */
  List<Entry> listEntries(String folder) throws IOException;

  /**
   * Hands the name and length of every object directly under a folder to {@code each}, as one
   * listing (S3: ListObjectsV2 pages) instead of a request per object; nothing when there is none.
   * The default asks for each object's length, for stores that cannot list lengths.
   */
  default void listLengths(String folder, LengthConsumer each) throws IOException {
    String parent = folder.endsWith("/") ? folder : folder + "/";
    for (String name : list(folder)) {
      OptionalLong length = length(parent + name);
      if (length.isPresent()) {
        each.accept(name, length.getAsLong());
      }
    }
  }

  /**
   * {@link #listLengths(String, LengthConsumer)} of the objects whose names start with {@code
   * namePrefix}. A store that lists by key prefix asks for those alone (S3: the prefix of the
   * request); the default filters the folder's listing.
   */
  default void listLengths(String folder, String namePrefix, LengthConsumer each)
      throws IOException {
    if (namePrefix.isEmpty()) {
      listLengths(folder, each);
      return;
    }
    listLengths(
        folder,
        (name, length) -> {
          if (name.startsWith(namePrefix)) {
            each.accept(name, length);
          }
        });
  }

  /** Names of the folders directly under a folder (S3: common prefixes), empty when none. */
  List<String> listFolders(String folder) throws IOException;

  /** Deletes an object; an object already gone is not an error. */
  void delete(String path) throws IOException;

  /**
   * Deletes objects, in the list's order as far as the caller can tell: when this returns, every
   * one is gone; when it throws, the ones before the failing one may be gone, the rest are not
   * touched past the failing request. Objects already gone are not an error. This default deletes
   * one at a time, through {@link #delete}, so a wrapper that watches deletes sees each; a store
   * with a batch request overrides it.
   */
  default void deleteAll(List<String> paths) throws IOException {
    for (String path : paths) {
      delete(path);
    }
  }

  /**
   * Takes the exclusive lock of one table location, so that replication and retention of a table
   * never run at the same time.
   *
   * @throws io.icerepl.merge.error.ConflictException when another run holds it
   */
  Lock lock(String location) throws IOException;

  /**
   * An object's length and checksums.
   *
   * @param checksums algorithm ({@code MD5}, {@code CRC32C}, ...) to the value the store reports;
   *     only values that depend on the bytes alone, so equal content gives equal values on any
   *     object of any store
   */
  record ObjectInfo(long length, Map<String, String> checksums) {
    public ObjectInfo {
      checksums = Map.copyOf(checksums);
    }
  }

  /**
   * One write of an object as the store identifies it: its ETag on S3, the SHA-256 of its content
   * on local files. Equal only for the same object written with the same bytes.
   */
  record ObjectVersion(String tag) {
    public ObjectVersion {
      Objects.requireNonNull(tag, "tag");
    }
  }

  /** A small object's bytes and the version they were read at. */
  record VersionedObject(byte[] content, ObjectVersion version) {}

  /** An object in a listing: its name and its last modification time. */
  record Entry(String name, long lastModifiedMs) {}

  /** A held table lock; closing releases it. */
  interface Lock extends AutoCloseable {
    /**
     * Fails unless this run still holds the lock. Called before each step that must never run
     * beside another run of the table (removing a failed commit's files, publishing, deleting): a
     * lock that can expire may have been taken over meanwhile.
     *
     * @param action what the run is about to do, for the message ("publish replica version 3")
     * @throws io.icerepl.merge.error.TableBusyException naming the table and who holds it now
     */
    void checkHeld(String action) throws IOException;

    /**
     * This holding's fencing epoch: larger than that of every earlier holding of the lock, so that
     * of two runs that held a table one after the other, the later one carries the larger number
     * whatever the clocks say. 0 for a lock that numbers none.
     */
    default long epoch() {
      return 0;
    }

    /**
     * Raises this holding's epoch to at least {@code floor} (an epoch found recorded elsewhere, as
     * in a replica's state written under an older lease), recorded in the lock itself so that the
     * next holding numbers above it.
     *
     * @param action what the run is about to do, for the message should the lock be lost
     * @return the epoch now held
     * @throws io.icerepl.merge.error.TableBusyException when the lock was lost
     */
    default long raiseEpoch(long floor, String action) throws IOException {
      return Math.max(epoch(), floor);
    }

    @Override
    void close() throws IOException;
  }

  /** Takes the objects of a listing, one at a time. */
  @FunctionalInterface
  interface LengthConsumer {
    void accept(String name, long length);
  }

  /** Produces an object's bytes. */
  @FunctionalInterface
  interface Writer {
    void writeTo(OutputStream out) throws IOException;
  }
}
