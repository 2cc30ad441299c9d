package io.icerepl.copier.gcs;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobSourceOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.Storage.BlobWriteOption;
import com.google.cloud.storage.Storage.CopyRequest;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Objects on Google Cloud Storage at {@code gs://bucket/name}, through a {@link Storage} client
 * made elsewhere ({@link GcsAccess#open}, or an in-process fake in tests).
 *
 * <p>A write streams through a resumable upload: the client holds one chunk at a time, and GCS
 * makes the object visible only when the upload is finalized, which happens when the write channel
 * closes. A producer that fails leaves the channel unclosed, so the upload is never finalized and
 * no object appears (GCS drops the session after a week).
 *
 * <p>An object's version is its generation, which GCS gives every write anew; the conditional
 * writes and delete are requests with {@code ifGenerationMatch} (0 for "no object"), which GCS
 * checks and applies as one step.
 */
public final class GcsObjectStore implements ObjectStore, AutoCloseable {
  /** The upload chunk size unless told: the memory a write holds. A multiple of 256 KiB. */
  public static final int DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

  /** The least a ranged read fetches, as S3's read-ahead. */
  public static final int DEFAULT_READ_AHEAD_BYTES = 1024 * 1024;

  /** Reads of an object that another writer replaces between metadata and content, retried. */
  private static final int VERSIONED_READ_ATTEMPTS = 5;

  private final Storage storage;
  private final int chunkBytes;
  private final int readAheadBytes;
  private final boolean ownsStorage;
  private final LeaseLocks locks;
  private final GcsListing listing;
  private final GcsUpload uploads;

  /** A store on a client made elsewhere, which stays open when the store closes. */
  public GcsObjectStore(Storage storage) {
    this(storage, ReplicaLayout.defaultLeases());
  }

  /** As {@link #GcsObjectStore(Storage)}, its table leases taken as {@code leases} says. */
  public GcsObjectStore(Storage storage, LeaseLocks.Settings leases) {
    this(storage, DEFAULT_CHUNK_BYTES, DEFAULT_READ_AHEAD_BYTES, false, leases);
  }

  /**
   * As {@link #GcsObjectStore(Storage)}, uploading in chunks of {@code chunkBytes} (a multiple of
   * 256 KiB) and reading ahead at least {@code readAheadBytes}.
   */
  public GcsObjectStore(Storage storage, int chunkBytes, int readAheadBytes) {
    this(storage, chunkBytes, readAheadBytes, false, ReplicaLayout.defaultLeases());
  }

  private GcsObjectStore(
      Storage storage,
      int chunkBytes,
      int readAheadBytes,
      boolean ownsStorage,
      LeaseLocks.Settings leases) {
    if (chunkBytes <= 0 || chunkBytes % (256 * 1024) != 0) {
      throw new IllegalArgumentException(
          "Cannot upload to GCS in chunks of " + chunkBytes + " bytes: not a multiple of 256 KiB");
    }
    this.storage = storage;
    this.chunkBytes = chunkBytes;
    this.readAheadBytes = readAheadBytes;
    this.ownsStorage = ownsStorage;
    this.locks = new LeaseLocks(this, leases, GcsObjectStore::leaseObject);
    this.listing = new GcsListing(storage);
    this.uploads = new GcsUpload(storage, chunkBytes);
  }

  /**
   * {@code gs://<table's bucket>/<lockPrefix>/<sha256 of the canonical table location>}: outside
   * the table, so that its readers and its retention never see it.
   */
  static String leaseObject(String lockPrefix, String location) {
    return ReplicaLayout.leaseObject(
        "gs://" + GcsLocation.parse(location).bucket(), lockPrefix, location);
  }

  /** A store with its own client for {@code access}, closed with the store. */
  public static GcsObjectStore open(GcsAccess access) {
    return open(access, ReplicaLayout.defaultLeases());
  }

  /** As {@link #open(GcsAccess)}, its table leases taken as {@code leases} says. */
  public static GcsObjectStore open(GcsAccess access, LeaseLocks.Settings leases) {
    return new GcsObjectStore(
        access.open(), DEFAULT_CHUNK_BYTES, DEFAULT_READ_AHEAD_BYTES, true, leases);
  }

  /**
   * Whether a copy from {@code source} can run inside GCS (a rewrite) instead of streaming through
   * this process: the source is a GCS store on this client, or on one with the same options (host,
   * project and credentials), so this client may read what that one reads.
   */
  public boolean canCopyServerSideFrom(ObjectStore source) {
    return source instanceof GcsObjectStore other
        && (other.storage == storage || other.storage.getOptions().equals(storage.getOptions()));
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    return metadata("get length of", path)
        .map(blob -> OptionalLong.of(blob.getSize()))
        .orElse(OptionalLong.empty());
  }

  /**
   * The length, the CRC32C GCS keeps of every object (base64 of its big-endian bytes, as S3 gives
   * it) and the MD5 it keeps of an object not composed of others (hex, as an S3 ETag is).
   */
  @Override
  public Optional<ObjectInfo> info(String path) throws IOException {
    Optional<Blob> blob = metadata("get checksums of", path);
    if (blob.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new ObjectInfo(blob.get().getSize(), checksumsOf(blob.get())));
  }

  /** Reads the generation the metadata named, so the stream is one object's bytes throughout. */
  @Override
  public InputStream open(String path) throws IOException {
    Blob blob = metadata("open", path).orElseThrow(() -> new NoSuchFileException(path));
    ReadChannel channel =
        storage.reader(
            blob.getBlobId(), BlobSourceOption.generationMatch(generationOf(path, blob)));
    InputStream in = Channels.newInputStream(channel);
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        return GcsErrors.run("read", path, in::read);
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return GcsErrors.run("read", path, () -> in.read(b, off, len));
      }
    };
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    Blob blob = metadata("open", path).orElseThrow(() -> new NoSuchFileException(path));
    return new GcsSeekableInput(
        storage, path, blob.getBlobId(), generationOf(path, blob), blob.getSize(), readAheadBytes);
  }

  @Override
  public long write(String path, Writer writer) throws IOException {
    return uploads.upload("write", path, writer);
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    GcsLocation at = GcsLocation.parse(path);
    try {
      GcsErrors.run(
          "create", path, () -> storage.create(info(at), content, BlobTargetOption.doesNotExist()));
      return true;
    } catch (IOException e) {
      if (GcsErrors.preconditionFailed(e)) {
        return false;
      }
      throw e;
    }
  }

  /** Streamed as {@link #write}, through an upload that GCS finalizes only where nothing is. */
  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    try {
      uploads.upload("create", path, writer, BlobWriteOption.doesNotExist());
      return true;
    } catch (IOException e) {
      if (GcsErrors.preconditionFailed(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The metadata first, then the content of exactly the generation it names ({@code
   * ifGenerationMatch}): bytes and version of one write. When another writer replaced or removed
   * the object in between, GCS refuses the read and the two are asked again.
   */
  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    IOException changed = null;
    for (int attempt = 0; attempt < VERSIONED_READ_ATTEMPTS; attempt++) {
      Optional<Blob> blob = metadata("read", path);
      if (blob.isEmpty()) {
        return Optional.empty();
      }
      long generation = generationOf(path, blob.get());
      try {
        byte[] content =
            GcsErrors.run(
                "read",
                path,
                () ->
                    storage.readAllBytes(
                        blob.get().getBlobId(), BlobSourceOption.generationMatch(generation)));
        return Optional.of(new VersionedObject(content, version(generation)));
      } catch (NoSuchFileException e) {
        changed = e;
      } catch (IOException e) {
        if (!GcsErrors.preconditionFailed(e)) {
          throw e;
        }
        changed = e;
      }
    }
    throw new IOException(
        "Cannot read "
            + path
            + ": replaced by other writers during each of "
            + VERSIONED_READ_ATTEMPTS
            + " reads",
        changed);
  }

  /**
   * One upload with {@code ifGenerationMatch} on the expected generation, or 0 ("no live object")
   * when none is expected: GCS refuses it with 412 once another writer replaced or removed the
   * object, however long this one waited before sending it.
   */
  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    GcsLocation at = GcsLocation.parse(path);
    BlobTargetOption condition =
        expected.isPresent()
            ? BlobTargetOption.generationMatch(generation(path, expected.get()))
            : BlobTargetOption.doesNotExist();
    try {
      Blob written =
          GcsErrors.run("replace", path, () -> storage.create(info(at), content, condition));
      return Optional.of(version(generationOf(path, written)));
    } catch (IOException e) {
      if (GcsErrors.preconditionFailed(e)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** One delete with {@code ifGenerationMatch} on the expected generation. */
  @Override
  public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    GcsLocation at = GcsLocation.parse(path);
    long generation = generation(path, expected);
    try {
      return GcsErrors.run(
          "delete",
          path,
          () -> storage.delete(id(at), BlobSourceOption.generationMatch(generation)));
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      if (GcsErrors.preconditionFailed(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Inside GCS when {@link #canCopyServerSideFrom} allows: a rewrite, which the client repeats
   * until GCS reports it done (large objects, or ones changing location or storage class, take
   * several calls). Else streamed through this process as {@link #write}.
   */
  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    if (!canCopyServerSideFrom(source)) {
      return OptionalLong.of(
          write(
              targetPath,
              out -> {
                try (InputStream in = source.open(sourcePath)) {
                  in.transferTo(out);
                }
              }));
    }
    GcsLocation from = GcsLocation.parse(sourcePath);
    GcsLocation to = GcsLocation.parse(targetPath);
    try {
      GcsErrors.run(
          "copy to " + targetPath + " from",
          sourcePath,
          () ->
              storage
                  .copy(CopyRequest.newBuilder().setSource(id(from)).setTarget(info(to)).build())
                  .getResult());
    } catch (NoSuchFileException e) {
      NoSuchFileException missing =
          new NoSuchFileException(sourcePath, null, "source of a copy to " + targetPath);
      missing.initCause(e);
      throw missing;
    }
    return OptionalLong.empty();
  }

  @Override
  public List<String> list(String folder) throws IOException {
    return listEntries(folder).stream().map(Entry::name).toList();
  }

  @Override
  public List<Entry> listEntries(String folder) throws IOException {
    return listing.entries(folder);
  }

  @Override
  public void listLengths(String folder, LengthConsumer each) throws IOException {
    listing.lengths(folder, "", each);
  }

  /** One listing of the names under the folder that start with {@code namePrefix}. */
  @Override
  public void listLengths(String folder, String namePrefix, LengthConsumer each)
      throws IOException {
    listing.lengths(folder, namePrefix, each);
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    return listing.folders(folder);
  }

  @Override
  public void delete(String path) throws IOException {
    GcsLocation at = GcsLocation.parse(path);
    try {
      GcsErrors.run("delete", path, () -> storage.delete(id(at)));
    } catch (NoSuchFileException e) {
      // Already gone is what a delete wants.
    }
  }

  /**
   * One delete after another, in the list's order: a GCS batch request runs its deletes in no order
   * it promises, and the contract stops at the first failure with the later ones untouched.
   */
  @Override
  public void deleteAll(List<String> paths) throws IOException {
    for (String path : paths) {
      delete(path);
    }
  }

  @Override
  public Lock lock(String location) throws IOException {
    return locks.lock(location);
  }

  @Override
  public void close() throws IOException {
    locks.close();
    if (ownsStorage) {
      try {
        storage.close();
      } catch (Exception e) {
        throw new IOException("Cannot close the GCS client: " + e.getMessage(), e);
      }
    }
  }

  /** An object's metadata, empty when it does not exist. */
  private Optional<Blob> metadata(String verb, String path) throws IOException {
    GcsLocation at = GcsLocation.parse(path);
    try {
      return Optional.ofNullable(GcsErrors.run(verb, path, () -> storage.get(id(at))));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** The checksums of {@link #info}, from an object's metadata. */
  static Map<String, String> checksumsOf(BlobInfo blob) {
    Map<String, String> checksums = new LinkedHashMap<>();
    if (blob.getMd5() != null) {
      checksums.put("MD5", blob.getMd5ToHexString());
    }
    if (blob.getCrc32c() != null) {
      checksums.put("CRC32C", blob.getCrc32c());
    }
    return checksums;
  }

  private static BlobId id(GcsLocation at) {
    return BlobId.of(at.bucket(), at.name());
  }

  private static BlobInfo info(GcsLocation at) {
    return BlobInfo.newBuilder(id(at)).build();
  }

  private static ObjectVersion version(long generation) {
    return new ObjectVersion(Long.toString(generation));
  }

  private static long generation(String path, ObjectVersion version) {
    try {
      return Long.parseLong(version.tag());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot use version " + version.tag() + " of " + path + ": not a GCS generation", e);
    }
  }

  private static long generationOf(String path, Blob blob) throws IOException {
    if (blob.getGeneration() == null) {
      throw new IOException("Cannot tell the version of " + path + ": GCS reported no generation");
    }
    return blob.getGeneration();
  }
}
