package io.icerepl.copier.s3;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

/**
 * Objects on S3 (or an S3-compatible service) at {@code s3://bucket/key}; {@code s3a://} and {@code
 * s3n://} name the same objects. Every call goes through {@link S3Resilience}.
 *
 * <p>A write is buffered until its writer has finished and then lands in one PutObject, or one
 * completed multipart upload, so readers see the whole object or none.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {
  /** S3 accepts at most this many parts per upload. */
  private static final int MAX_PARTS = 10_000;

  private final S3Client client;
  private final S3AsyncClient asyncClient;
  private final S3TransferManager transferManager;
  private final S3StoreSettings settings;
  private final S3Calls calls;
  private final LeaseLocks locks;
  private final S3Listing listing;
  private final S3ConditionalWrites conditionalWrites;
  private final S3ServerSideCopy serverSide;
  private final S3BatchDelete batchDelete;
  private final Optional<S3Endpoint> endpoint;
  private final boolean ownsClients;

  /**
   * A store on clients configured elsewhere, which stay open when the store closes. For single
   * requests the async client must have multipart enabled, so that copies above the threshold use
   * UploadPartCopy, and its SDK retries off like the sync client's.
   */
  public S3ObjectStore(
      S3Client client,
      S3AsyncClient asyncClient,
      S3StoreSettings settings,
      S3Resilience resilience) {
    this(client, asyncClient, settings, resilience, Optional.empty(), false);
  }

  private S3ObjectStore(
      S3Client client,
      S3AsyncClient asyncClient,
      S3StoreSettings settings,
      S3Resilience resilience,
      Optional<S3Endpoint> endpoint,
      boolean ownsClients) {
    this.client = client;
    this.asyncClient = asyncClient;
    this.transferManager = S3TransferManager.builder().s3Client(asyncClient).build();
    this.settings = settings;
    this.calls = new S3Calls(resilience);
    this.listing = new S3Listing(client, calls, settings);
    this.conditionalWrites = new S3ConditionalWrites(client, calls, settings, this);
    this.locks =
        new LeaseLocks(
            this,
            new LeaseLocks.Settings(
                settings.lockPrefix(), settings.lockOwner(), settings.lockTtl(), settings.clock()),
            S3ObjectStore::leaseObject);
    this.serverSide = new S3ServerSideCopy(client, transferManager, calls, settings);
    this.batchDelete = new S3BatchDelete(client, calls);
    this.endpoint = endpoint;
    this.ownsClients = ownsClients;
  }

  /** A store with its own clients for {@code endpoint}, closed with the store. */
  public static S3ObjectStore create(
      S3Endpoint endpoint, S3StoreSettings settings, S3Resilience resilience) {
    return create(endpoint, settings, resilience, List.of());
  }

  /**
   * As {@link #create(S3Endpoint, S3StoreSettings, S3Resilience)}, with SDK interceptors on both
   * clients (request tracing, or faults injected by tests).
   */
  public static S3ObjectStore create(
      S3Endpoint endpoint,
      S3StoreSettings settings,
      S3Resilience resilience,
      List<ExecutionInterceptor> interceptors) {
    S3Clients clients = S3Clients.create(endpoint, settings, interceptors);
    return new S3ObjectStore(
        clients.sync(), clients.async(), settings, resilience, Optional.of(endpoint), true);
  }

  /**
   * Whether a copy from {@code source} can run inside S3 (CopyObject) instead of streaming through
   * this process: the source is an S3 store on the same clients, or on the same service reached
   * with the same credentials.
   */
  public boolean canCopyServerSideFrom(ObjectStore source) {
    if (!(source instanceof S3ObjectStore other)) {
      return false;
    }
    if (other.client == client) {
      return true;
    }
    return endpoint.isPresent()
        && other.endpoint.isPresent()
        && endpoint.get().sameServiceAndPrincipal(other.endpoint.get());
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      return OptionalLong.of(
          calls
              .run(
                  "get length of",
                  path,
                  at,
                  () -> client.headObject(b -> b.bucket(at.bucket()).key(at.key())))
              .contentLength());
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (IOException e) {
      if (S3Calls.hasStatus(e, 403)) {
        return listing.listedLength(path, at, e);
      }
      throw e;
    }
  }

  /**
   * The length, the MD5 an ETag is when S3 computed it from the content (a single-part object, not
   * encrypted with KMS or a customer key), and the additional checksums of the whole object (not
   * the composite ones of a multipart upload, which depend on its part sizes).
   */
  @Override
  public Optional<ObjectInfo> info(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    HeadObjectResponse head;
    try {
      head =
          calls.run(
              "get checksums of",
              path,
              at,
              () ->
                  client.headObject(
                      b -> b.bucket(at.bucket()).key(at.key()).checksumMode(ChecksumMode.ENABLED)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (S3Calls.hasStatus(e, 403)) {
        OptionalLong listed = listing.listedLength(path, at, e);
        return listed.isPresent()
            ? Optional.of(new ObjectInfo(listed.getAsLong(), Map.of()))
            : Optional.empty();
      }
      throw e;
    }
    return Optional.of(new ObjectInfo(head.contentLength(), S3Checksums.of(head)));
  }

  @Override
  public InputStream open(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      return calls.run(
          "open", path, at, () -> client.getObject(b -> b.bucket(at.bucket()).key(at.key())));
    } catch (IOException e) {
      if (S3Calls.hasStatus(e, 403) && listing.listedLength(path, at, e).isEmpty()) {
        NoSuchFileException missing =
            new NoSuchFileException(path, null, "not found (403 without list access)");
        missing.initCause(e);
        throw missing;
      }
      throw e;
    }
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    long length = length(path).orElseThrow(() -> new NoSuchFileException(path));
    return new S3SeekableInput(client, calls, path, at, length, settings.readAheadBytes());
  }

  @Override
  public long write(String path, Writer writer) throws IOException {
    S3Location at = S3Location.parse(path);
    WriteBuffer buffer = new WriteBuffer(settings.memoryBufferBytes());
    try {
      try (buffer) {
        writer.writeTo(buffer);
      }
      if (buffer.size() > settings.multipartThresholdBytes()) {
        new MultipartUpload(client, calls, path, at).upload(buffer, partSize(buffer.size()));
      } else {
        RequestBody body =
            buffer.bytes() != null
                ? RequestBody.fromBytes(buffer.bytes())
                : RequestBody.fromFile(buffer.file());
        calls.run(
            "write",
            path,
            at,
            () -> client.putObject(b -> b.bucket(at.bucket()).key(at.key()), body));
      }
      return buffer.size();
    } finally {
      buffer.discard();
    }
  }

  /** The configured part size, or larger when the object would need too many parts. */
  private long partSize(long length) {
    return Math.max(settings.partSizeBytes(), (length + MAX_PARTS - 1) / MAX_PARTS);
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    return conditionalWrites.createIfAbsent(path, content);
  }

  /**
   * As {@link #createIfAbsent(String, byte[])}, from a temporary file once the content outgrows the
   * memory buffer: the metadata file of a long history is not held whole in heap to publish it. One
   * conditional PUT either way (up to 5 GiB, far above any metadata file's limit).
   */
  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    return conditionalWrites.createIfAbsent(path, writer);
  }

  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    return conditionalWrites.readVersioned(path);
  }

  /**
   * One PUT with {@code If-Match} on the expected ETag, or {@code If-None-Match: *} when none is
   * expected: S3 refuses it (412, or 404 when the object is gone) once another writer replaced the
   * object, however long this one waited before sending it.
   */
  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    return conditionalWrites.replaceIf(path, expected, content);
  }

  /**
   * One DeleteObject with {@code If-Match} on the expected ETag: false on 412 (another writer
   * replaced the object) or 404. S3 may answer a conditional delete of a key already gone with 204
   * as well (as the embedded S3 does), which reads as true: nothing was changed either way.
   */
  @Override
  public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    return conditionalWrites.deleteIf(path, expected);
  }

  /**
   * Inside S3 when {@link #canCopyServerSideFrom} allows: one CopyObject up to the multipart copy
   * threshold, the transfer manager's UploadPartCopy above it (S3 refuses a single CopyObject over
   * 5 GiB). The recorded length decides which, so no HeadObject precedes the copy; only an unknown
   * length is asked for. Else streamed through this process.
   */
  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    S3Location to = S3Location.parse(targetPath);
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
    S3Location from = S3Location.parse(sourcePath);
    long length =
        recordedLength >= 0
            ? recordedLength
            : source.length(sourcePath).orElseThrow(() -> new NoSuchFileException(sourcePath));
    try {
      serverSide.copy(from, to, sourcePath, targetPath, length);
    } catch (NoSuchFileException e) {
      throw S3ServerSideCopy.missingSource(sourcePath, e);
    } catch (IOException e) {
      // A role that may list the source only under a prefix gets 403 for a missing key.
      if (S3Calls.hasStatus(e, 403) && source.length(sourcePath).isEmpty()) {
        throw S3ServerSideCopy.missingSource(sourcePath, e);
      }
      throw e;
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
    listing.listLengths(folder, each);
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
    S3Location at = S3Location.parse(path);
    try {
      calls.run(
          "delete", path, at, () -> client.deleteObject(b -> b.bucket(at.bucket()).key(at.key())));
    } catch (NoSuchFileException e) {
      // Already gone is what a delete wants.
    }
  }

  /**
   * One DeleteObjects request per run of at most 1,000 keys of one bucket, instead of a
   * DeleteObject per key: an expiry of a large history deletes tens of thousands of files. A key S3
   * could not delete fails the call, naming it and S3's code; the keys of later requests are not
   * touched.
   */
  @Override
  public void deleteAll(List<String> paths) throws IOException {
    batchDelete.deleteAll(paths);
  }

  /**
   * A lease object ({@link LeaseLocks}) in the table's bucket, written and read through this
   * store's own conditional requests, so {@link S3Resilience} applies to them.
   */
  @Override
  public Lock lock(String location) throws IOException {
    return locks.lock(location);
  }

  /**
   * The object's ETag as S3 reports it (quotes removed), empty when it does not exist: S3 Batch
   * Operations names its manifest by it.
   */
  public Optional<String> eTag(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      String etag =
          calls
              .run(
                  "get the ETag of",
                  path,
                  at,
                  () -> client.headObject(b -> b.bucket(at.bucket()).key(at.key())))
              .eTag();
      return Optional.ofNullable(etag).map(e -> e.replace("\"", ""));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** The lease object that {@link #lock} writes for {@code location}. */
  public String leasePath(String location) {
    return locks.leasePath(location);
  }

  /**
   * {@code s3://<table's bucket>/<lockPrefix>/<sha256 of the canonical table location>}: outside
   * the table, so that its readers and its retention never see it.
   */
  static String leaseObject(String lockPrefix, String location) {
    S3Location table = S3Location.parse(location);
    return new S3Location(table.bucket(), ReplicaLayout.leaseKey(lockPrefix, table.canonical()))
        .toString();
  }

  @Override
  public void close() {
    locks.close();
    transferManager.close();
    if (ownsClients) {
      client.close();
      asyncClient.close();
    }
  }
}
