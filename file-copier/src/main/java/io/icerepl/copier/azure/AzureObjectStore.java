package io.icerepl.copier.azure;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.models.BlobCopyInfo;
import com.azure.storage.blob.models.BlobDownloadContentResponse;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.CopyStatusType;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Objects in Azure Blob Storage (and ADLS Gen2, which serves the Blob API) at {@code
 * abfss://<container>@<account>.dfs.core.windows.net/<path>} or the {@code wasbs://} form with the
 * account's Blob host; see {@link AzureLocation}. Every blob is a block blob.
 *
 * <p>A write streams its content into staged blocks and commits them in one request when its writer
 * has finished ({@link BlockBlobUpload}), so readers see the whole object or none. Conditional
 * requests use the blob's ETag: {@code If-Match} to replace or delete what was read, {@code
 * If-None-Match: *} to create where nothing is; Azure checks them atomically with the write.
 */
public final class AzureObjectStore implements ObjectStore, AutoCloseable {
  /** Staged block size of a streamed write: memory held per write in flight. */
  public static final int DEFAULT_BLOCK_SIZE = 4 * 1024 * 1024;

  private static final int READ_AHEAD = 1024 * 1024;
  private static final Duration COPY_POLL = Duration.ofMillis(200);

  private final AzureClients clients;
  private final AzureListing listing;
  private final int blockSize;
  private final LeaseLocks locks;

  public AzureObjectStore(AzureAccess access) {
    this(access, ReplicaLayout.defaultLeases());
  }

  /** A store whose table leases are taken as {@code leases} says. */
  public AzureObjectStore(AzureAccess access, LeaseLocks.Settings leases) {
    this(access, DEFAULT_BLOCK_SIZE, leases);
  }

  /** A store that stages writes in blocks of {@code blockSize} bytes. */
  public AzureObjectStore(AzureAccess access, int blockSize, LeaseLocks.Settings leases) {
    if (blockSize <= 0) {
      throw new IllegalArgumentException("Block size must be positive, not " + blockSize);
    }
    this.clients = new AzureClients(access);
    this.listing = new AzureListing(clients);
    this.blockSize = blockSize;
    this.locks = new LeaseLocks(this, leases, AzureObjectStore::leaseObject);
  }

  /**
   * {@code wasbs://<table's container>@<account's Blob host>/<lockPrefix>/<sha256 of the canonical
   * table location>}: outside the table, so that its readers and its retention never see it.
   */
  static String leaseObject(String lockPrefix, String location) {
    AzureLocation table = AzureLocation.parse(location);
    return ReplicaLayout.leaseObject(
        "wasbs://" + table.container() + "@" + table.blobHost(), lockPrefix, location);
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    return properties("get length of", path)
        .map(p -> OptionalLong.of(p.getBlobSize()))
        .orElse(OptionalLong.empty());
  }

  /**
   * The length and, when the blob has one, its Content-MD5 (hex, as S3's MD5 is): Azure computes it
   * for a blob written in one request, and this store sets it on the ones it writes in blocks.
   */
  @Override
  public Optional<ObjectInfo> info(String path) throws IOException {
    return properties("get checksums of", path)
        .map(
            p ->
                new ObjectInfo(
                    p.getBlobSize(),
                    p.getContentMd5() == null || p.getContentMd5().length == 0
                        ? Map.of()
                        : Map.of("MD5", HexFormat.of().formatHex(p.getContentMd5()))));
  }

  private Optional<BlobProperties> properties(String action, String path) throws IOException {
    BlobClient blob = blob(path);
    try {
      return Optional.of(AzureErrors.run(action, path, blob::getProperties));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** A stream of the blob as it was at open (reads pinned to its ETag), in 4 MiB requests. */
  @Override
  public InputStream open(String path) throws IOException {
    BlobClient blob = blob(path);
    return AzureErrors.run("open", path, blob::openInputStream);
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    BlobProperties props =
        properties("open", path).orElseThrow(() -> new NoSuchFileException(path));
    return new AzureSeekableInput(
        blob(path), path, props.getBlobSize(), props.getETag(), READ_AHEAD);
  }

  @Override
  public long write(String path, Writer writer) throws IOException {
    BlockBlobUpload upload = upload(path);
    writer.writeTo(upload);
    upload.commit(null);
    return upload.length();
  }

  /** One Put Blob with {@code If-None-Match: *}. */
  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    return put(path, Optional.empty(), content).isPresent();
  }

  /**
   * Streamed into staged blocks, then one Put Block List with {@code If-None-Match: *}: a metadata
   * file larger than the heap allows can be published, and a writer that lost the race changes
   * nothing.
   */
  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    BlockBlobUpload upload = upload(path);
    writer.writeTo(upload);
    try {
      upload.commit(new BlobRequestConditions().setIfNoneMatch("*"));
      return true;
    } catch (IOException e) {
      if (conditionFailed(e)) {
        return false;
      }
      throw e;
    }
  }

  /** One Get Blob: the bytes and the ETag of exactly those bytes. */
  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    BlobClient blob = blob(path);
    try {
      BlobDownloadContentResponse response =
          AzureErrors.run(
              "read", path, () -> blob.downloadContentWithResponse(null, null, null, Context.NONE));
      return Optional.of(
          new VersionedObject(
              response.getValue().toBytes(),
              new ObjectVersion(response.getDeserializedHeaders().getETag())));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * One Put Blob with {@code If-Match} on the expected ETag, or {@code If-None-Match: *} when none
   * is expected: Azure refuses it (412 ConditionNotMet, 409 BlobAlreadyExists, or 404 when the blob
   * is gone) once another writer changed the blob, however long this one waited.
   */
  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    return put(path, expected, content);
  }

  private Optional<ObjectVersion> put(String path, Optional<ObjectVersion> expected, byte[] content)
      throws IOException {
    BlobRequestConditions conditions =
        expected.isPresent()
            ? new BlobRequestConditions().setIfMatch(expected.get().tag())
            : new BlobRequestConditions().setIfNoneMatch("*");
    BlobClient blob = blob(path);
    try {
      String eTag =
          AzureErrors.run(
              "write",
              path,
              () ->
                  blob.getBlockBlobClient()
                      .uploadWithResponse(
                          new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(content))
                              .setRequestConditions(conditions),
                          null,
                          Context.NONE)
                      .getValue()
                      .getETag());
      return Optional.of(new ObjectVersion(eTag));
    } catch (IOException e) {
      if (conditionFailed(e) || (expected.isPresent() && blobMissing(e))) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** One Delete Blob with {@code If-Match} on the expected ETag. */
  @Override
  public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    BlobClient blob = blob(path);
    try {
      AzureErrors.run(
          "delete",
          path,
          () ->
              blob.deleteWithResponse(
                  DeleteSnapshotsOptionType.INCLUDE,
                  new BlobRequestConditions().setIfMatch(expected.tag()),
                  null,
                  Context.NONE));
      return true;
    } catch (IOException e) {
      if (conditionFailed(e) || blobMissing(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Whether a copy from {@code source} can run inside Azure (Copy Blob): the source is an Azure
   * store reaching the same account with the same access, which authorizes the copy's source.
   */
  public boolean canCopyServerSideFrom(ObjectStore source, String sourcePath, String targetPath) {
    if (!(source instanceof AzureObjectStore other)) {
      return false;
    }
    if (other != this && !other.clients.access().equals(clients.access())) {
      return false;
    }
    return AzureLocation.parse(sourcePath)
        .blobHost()
        .equals(AzureLocation.parse(targetPath).blobHost());
  }

  /**
   * Inside Azure when {@link #canCopyServerSideFrom} allows: Copy Blob, waited for (within an
   * account it completes at once), whatever the length; else streamed through this process into
   * staged blocks.
   */
  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    if (!canCopyServerSideFrom(source, sourcePath, targetPath)) {
      return OptionalLong.of(
          write(
              targetPath,
              out -> {
                try (InputStream in = source.open(sourcePath)) {
                  in.transferTo(out);
                }
              }));
    }
    String sourceUrl = blob(sourcePath).getBlobUrl();
    BlobClient target = blob(targetPath);
    BlobCopyInfo copied;
    try {
      copied =
          AzureErrors.run(
              "copy " + sourcePath + " to",
              targetPath,
              () -> target.beginCopy(sourceUrl, COPY_POLL).waitForCompletion().getValue());
    } catch (IOException e) {
      if (blobMissing(e) || source.length(sourcePath).isEmpty()) {
        NoSuchFileException missing = new NoSuchFileException(sourcePath, null, "copy source");
        missing.initCause(e);
        throw missing;
      }
      throw e;
    }
    if (copied.getCopyStatus() != CopyStatusType.SUCCESS) {
      throw new IOException(
          "Cannot copy "
              + sourcePath
              + " to "
              + targetPath
              + ": the copy ended "
              + copied.getCopyStatus()
              + (copied.getError() == null ? "" : " (" + copied.getError() + ")"));
    }
    return OptionalLong.empty();
  }

  @Override
  public List<String> list(String folder) throws IOException {
    return listing.list(folder);
  }

  @Override
  public List<Entry> listEntries(String folder) throws IOException {
    return listing.listEntries(folder);
  }

  @Override
  public void listLengths(String folder, LengthConsumer each) throws IOException {
    listing.listLengths(folder, "", each);
  }

  @Override
  public void listLengths(String folder, String namePrefix, LengthConsumer each)
      throws IOException {
    listing.listLengths(folder, namePrefix, each);
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    return listing.listFolders(folder);
  }

  @Override
  public void delete(String path) throws IOException {
    BlobClient blob = blob(path);
    try {
      AzureErrors.run(
          "delete",
          path,
          () ->
              blob.deleteWithResponse(DeleteSnapshotsOptionType.INCLUDE, null, null, Context.NONE));
    } catch (NoSuchFileException e) {
      // Already gone is what a delete wants.
    }
  }

  @Override
  public Lock lock(String location) throws IOException {
    return locks.lock(location);
  }

  @Override
  public void close() {
    locks.close();
    clients.clear();
  }

  private BlobClient blob(String path) {
    AzureLocation at = AzureLocation.parse(path);
    if (at.blobName().isEmpty()) {
      throw new IllegalArgumentException("Not a blob: " + path + " names a container");
    }
    return clients.blob(at);
  }

  private BlockBlobUpload upload(String path) {
    return new BlockBlobUpload(blob(path).getBlockBlobClient(), path, blockSize);
  }

  private static boolean conditionFailed(IOException e) {
    return e.getCause() instanceof BlobStorageException failed
        && AzureErrors.isConditionFailed(failed);
  }

  /** The blob is missing, not its container. */
  private static boolean blobMissing(IOException e) {
    return e instanceof NoSuchFileException
        && e.getCause() instanceof BlobStorageException failed
        && !AzureErrors.isContainerMissing(failed);
  }
}
