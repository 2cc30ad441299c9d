package io.icerepl.copier.s3;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;
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

  /** The most keys one DeleteObjects request may name. */
  private static final int MAX_KEYS_PER_DELETE = 1_000;

  private final S3Client client;
  private final S3AsyncClient asyncClient;
  private final S3TransferManager transferManager;
  private final S3StoreSettings settings;
  private final S3Calls calls;
  private final S3TableLocks locks;
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
    this.locks = new S3TableLocks(client, calls, settings);
    this.endpoint = endpoint;
    this.ownsClients = ownsClients;
  }

  /** A store with its own clients for {@code endpoint}, closed with the store. */
  public static S3ObjectStore create(
      S3Endpoint endpoint, S3StoreSettings settings, S3Resilience resilience) {
    return create(endpoint, settings, resilience, java.util.List.of());
  }

  /**
   * As {@link #create(S3Endpoint, S3StoreSettings, S3Resilience)}, with SDK interceptors on both
   * clients (request tracing, or faults injected by tests).
   */
  public static S3ObjectStore create(
      S3Endpoint endpoint,
      S3StoreSettings settings,
      S3Resilience resilience,
      java.util.List<software.amazon.awssdk.core.interceptor.ExecutionInterceptor> interceptors) {
    AwsCredentialsProvider credentials =
        endpoint.accessKeyId().isPresent()
            ? StaticCredentialsProvider.create(
                AwsBasicCredentials.create(
                    endpoint.accessKeyId().get(), endpoint.secretAccessKey().get()))
            : DefaultCredentialsProvider.builder().build();
    var sync =
        S3Client.builder()
            .region(Region.of(endpoint.region()))
            .credentialsProvider(credentials)
            .forcePathStyle(endpoint.pathStyle())
            // The other side's bucket is often in another region: a CopyObject's HEAD of its
            // source,
            // or any call on a bucket of another region, gets a 301 that this follows to that
            // region.
            .crossRegionAccessEnabled(true)
            // S3Resilience is the one retry layer; SDK retries underneath would multiply attempts.
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .executionInterceptors(interceptors));
    var async =
        S3AsyncClient.builder()
            .region(Region.of(endpoint.region()))
            .credentialsProvider(credentials)
            .forcePathStyle(endpoint.pathStyle())
            .crossRegionAccessEnabled(true)
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .executionInterceptors(interceptors))
            .multipartEnabled(true)
            .multipartConfiguration(
                m ->
                    m.thresholdInBytes(settings.multipartCopyThresholdBytes())
                        .minimumPartSizeInBytes(settings.partSizeBytes()));
    endpoint
        .endpointOverride()
        .ifPresent(
            uri -> {
              sync.endpointOverride(uri);
              async.endpointOverride(uri);
            });
    return new S3ObjectStore(
        sync.build(), async.build(), settings, resilience, Optional.of(endpoint), true);
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
        return listedLength(path, at, e);
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
        OptionalLong listed = listedLength(path, at, e);
        return listed.isPresent()
            ? Optional.of(new ObjectInfo(listed.getAsLong(), Map.of()))
            : Optional.empty();
      }
      throw e;
    }
    return Optional.of(new ObjectInfo(head.contentLength(), checksums(head)));
  }

  private static Map<String, String> checksums(HeadObjectResponse head) {
    Map<String, String> checksums = new LinkedHashMap<>();
    String etag = head.eTag() == null ? "" : head.eTag().replace("\"", "");
    boolean contentEtag =
        !etag.isEmpty()
            && !etag.contains("-")
            && head.sseCustomerAlgorithm() == null
            && (head.serverSideEncryption() == null
                || head.serverSideEncryptionAsString().equals("AES256"));
    if (contentEtag) {
      checksums.put("MD5", etag);
    }
    if (head.checksumType() != ChecksumType.COMPOSITE) {
      putWhole(checksums, "CRC32", head.checksumCRC32());
      putWhole(checksums, "CRC32C", head.checksumCRC32C());
      putWhole(checksums, "CRC64NVME", head.checksumCRC64NVME());
      putWhole(checksums, "SHA1", head.checksumSHA1());
      putWhole(checksums, "SHA256", head.checksumSHA256());
    }
    return checksums;
  }

  private static void putWhole(Map<String, String> checksums, String algorithm, String value) {
    // a composite checksum ends in -<parts> even where the response names no checksum type
    if (value != null && !value.contains("-")) {
      checksums.put(algorithm, value);
    }
  }

  /**
   * S3 answers 403 instead of 404 for a missing key when the caller may list the bucket only under
   * a prefix (a least-privilege role): a listing of the key itself tells missing from forbidden.
   */
  private OptionalLong listedLength(String path, S3Location at, IOException forbidden)
      throws IOException {
    ListObjectsV2Response listing;
    try {
      listing =
          calls.run(
              "list",
              path,
              at,
              () -> client.listObjectsV2(b -> b.bucket(at.bucket()).prefix(at.key()).maxKeys(1)));
    } catch (IOException e) {
      forbidden.addSuppressed(e);
      throw forbidden;
    }
    return listing.contents().stream()
        .filter(o -> o.key().equals(at.key()))
        .mapToLong(o -> o.size())
        .findFirst();
  }

  @Override
  public InputStream open(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      return calls.run(
          "open", path, at, () -> client.getObject(b -> b.bucket(at.bucket()).key(at.key())));
    } catch (IOException e) {
      if (S3Calls.hasStatus(e, 403) && listedLength(path, at, e).isEmpty()) {
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
    return create(
        path, () -> RequestBody.fromBytes(content), () -> Arrays.equals(content, readAll(path)));
  }

  /**
   * As {@link #createIfAbsent(String, byte[])}, from a temporary file once the content outgrows the
   * memory buffer: the metadata file of a long history is not held whole in heap to publish it. One
   * conditional PUT either way (up to 5 GiB, far above any metadata file's limit).
   */
  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    WriteBuffer buffer = new WriteBuffer(settings.memoryBufferBytes());
    try {
      try (buffer) {
        writer.writeTo(buffer);
      }
      byte[] content = buffer.bytes();
      if (content != null) {
        return createIfAbsent(path, content);
      }
      return create(
          path,
          () -> RequestBody.fromFile(buffer.file()),
          () -> {
            try (InputStream stored = open(path);
                InputStream written = buffer.openInput()) {
              return sameBytes(stored, written);
            }
          });
    } finally {
      buffer.discard();
    }
  }

  /** Reads the object as it is; a retried create compares it with what it sent. */
  @FunctionalInterface
  private interface StoredCheck {
    boolean holdsWhatWasSent() throws IOException;
  }

  private boolean create(String path, Supplier<RequestBody> body, StoredCheck sameAsSent)
      throws IOException {
    S3Location at = S3Location.parse(path);
    AtomicInteger attempts = new AtomicInteger();
    try {
      calls.run(
          "create",
          path,
          at,
          () -> {
            attempts.incrementAndGet();
            return client.putObject(
                b -> b.bucket(at.bucket()).key(at.key()).ifNoneMatch("*"), body.get());
          });
      return true;
    } catch (IOException e) {
      if (!S3Calls.hasStatus(e, 412, 409)) {
        throw e;
      }
      // A retry after a lost answer finds the object its own first attempt created. Equal bytes
      // mean that, or a writer that wrote the same thing: either way the object is as intended.
      return attempts.get() > 1 && sameAsSent.holdsWhatWasSent();
    }
  }

  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    S3Location at = S3Location.parse(path);
    try {
      ResponseBytes<GetObjectResponse> bytes =
          calls.run(
              "read",
              path,
              at,
              () -> client.getObjectAsBytes(b -> b.bucket(at.bucket()).key(at.key())));
      return Optional.of(
          new VersionedObject(bytes.asByteArray(), new ObjectVersion(bytes.response().eTag())));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * One PUT with {@code If-Match} on the expected ETag, or {@code If-None-Match: *} when none is
   * expected: S3 refuses it (412, or 404 when the object is gone) once another writer replaced the
   * object, however long this one waited before sending it.
   */
  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    S3Location at = S3Location.parse(path);
    AtomicInteger attempts = new AtomicInteger();
    try {
      String etag =
          calls
              .run(
                  "replace",
                  path,
                  at,
                  () -> {
                    attempts.incrementAndGet();
                    return client.putObject(
                        b -> {
                          b.bucket(at.bucket()).key(at.key());
                          if (expected.isPresent()) {
                            b.ifMatch(expected.get().tag());
                          } else {
                            b.ifNoneMatch("*");
                          }
                        },
                        RequestBody.fromBytes(content));
                  })
              .eTag();
      return Optional.of(new ObjectVersion(etag));
    } catch (NoSuchFileException e) {
      return ownRetried(path, content, attempts.get());
    } catch (IOException e) {
      if (!S3Calls.hasStatus(e, 412, 409)) {
        throw e;
      }
      return ownRetried(path, content, attempts.get());
    }
  }

  /**
   * A refused conditional PUT: after a retry it may have met its own first attempt, whose answer
   * was lost. The object then holds exactly what was sent, and that write is taken as this one.
   */
  private Optional<ObjectVersion> ownRetried(String path, byte[] sent, int attempts)
      throws IOException {
    if (attempts < 2) {
      return Optional.empty();
    }
    return readVersioned(path)
        .filter(now -> Arrays.equals(now.content(), sent))
        .map(VersionedObject::version);
  }

  private static boolean sameBytes(InputStream a, InputStream b) throws IOException {
    byte[] left = new byte[64 * 1024];
    byte[] right = new byte[left.length];
    while (true) {
      int n = a.readNBytes(left, 0, left.length);
      if (b.readNBytes(right, 0, n) != n || (n < left.length && b.read() != -1)) {
        return false;
      }
      if (!Arrays.equals(left, 0, n, right, 0, n)) {
        return false;
      }
      if (n < left.length) {
        return true;
      }
    }
  }

  private byte[] readAll(String path) throws IOException {
    try (InputStream in = open(path)) {
      return in.readAllBytes();
    }
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
      copyInside(from, to, sourcePath, targetPath, length);
    } catch (NoSuchFileException e) {
      throw missingSource(sourcePath, e);
    } catch (IOException e) {
      // A role that may list the source only under a prefix gets 403 for a missing key.
      if (S3Calls.hasStatus(e, 403) && source.length(sourcePath).isEmpty()) {
        throw missingSource(sourcePath, e);
      }
      throw e;
    }
    return OptionalLong.empty();
  }

  private void copyInside(
      S3Location from, S3Location to, String sourcePath, String targetPath, long length)
      throws IOException {
    if (length <= settings.multipartCopyThresholdBytes()) {
      calls.run(
          "copy " + sourcePath + " to",
          targetPath,
          to,
          () ->
              client.copyObject(
                  r ->
                      r.sourceBucket(from.bucket())
                          .sourceKey(from.key())
                          .destinationBucket(to.bucket())
                          .destinationKey(to.key())));
    } else {
      calls.run(
          "copy " + sourcePath + " to",
          targetPath,
          to,
          () ->
              transferManager
                  .copy(
                      c ->
                          c.copyObjectRequest(
                              r ->
                                  r.sourceBucket(from.bucket())
                                      .sourceKey(from.key())
                                      .destinationBucket(to.bucket())
                                      .destinationKey(to.key())))
                  .completionFuture()
                  .join());
    }
  }

  /** CopyObject answers 404 for its source key; the copy's own path would mislead. */
  private static NoSuchFileException missingSource(String sourcePath, IOException cause) {
    NoSuchFileException missing =
        new NoSuchFileException(sourcePath, null, "missing at the source");
    missing.initCause(cause);
    return missing;
  }

  @Override
  public List<String> list(String folder) throws IOException {
    return listEntries(folder).stream().map(Entry::name).toList();
  }

  @Override
  public List<Entry> listEntries(String folder) throws IOException {
    List<Entry> entries = new ArrayList<>();
    listing(
        folder,
        page -> {
          String prefix = page.prefix();
          for (S3Object object : page.contents()) {
            // A zero-byte "folder/" marker written by consoles is the folder itself, not a file.
            if (object.key().length() > prefix.length()) {
              entries.add(
                  new Entry(
                      object.key().substring(prefix.length()),
                      object.lastModified().toEpochMilli()));
            }
          }
        });
    entries.sort(java.util.Comparator.comparing(Entry::name));
    return entries;
  }

  @Override
  public void listLengths(String folder, LengthConsumer each) throws IOException {
    listLengths(folder, "", each);
  }

  @Override
  public void listLengths(String folder, String namePrefix, LengthConsumer each)
      throws IOException {
    int names = S3Location.parse(folder).folderPrefix().length();
    listing(
        folder,
        namePrefix,
        page -> {
          for (S3Object object : page.contents()) {
            if (object.key().length() > names) {
              each.accept(object.key().substring(names), object.size());
            }
          }
        });
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    List<String> names = new ArrayList<>();
    listing(
        folder,
        page -> {
          String prefix = page.prefix();
          for (CommonPrefix common : page.commonPrefixes()) {
            String name = common.prefix().substring(prefix.length());
            names.add(name.substring(0, name.length() - 1));
          }
        });
    names.sort(null);
    return names;
  }

  /** Every page of the listing directly under {@code folder}, following continuation tokens. */
  private void listing(String folder, Consumer<ListObjectsV2Response> pages) throws IOException {
    listing(folder, "", pages);
  }

  /** The same, of the names starting with {@code namePrefix} only. */
  private void listing(String folder, String namePrefix, Consumer<ListObjectsV2Response> pages)
      throws IOException {
    S3Location at = S3Location.parse(folder);
    String prefix = at.folderPrefix() + namePrefix;
    String token = null;
    do {
      String continuation = token;
      ListObjectsV2Response page =
          calls.run(
              "list",
              folder,
              at,
              () ->
                  client.listObjectsV2(
                      b ->
                          b.bucket(at.bucket())
                              .prefix(prefix)
                              .delimiter("/")
                              .maxKeys(settings.listPageSize())
                              .continuationToken(continuation)));
      pages.accept(page);
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
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
    int start = 0;
    while (start < paths.size()) {
      String bucket = S3Location.parse(paths.get(start)).bucket();
      List<ObjectIdentifier> keys = new ArrayList<>();
      int end = start;
      while (end < paths.size() && keys.size() < MAX_KEYS_PER_DELETE) {
        S3Location at = S3Location.parse(paths.get(end));
        if (!at.bucket().equals(bucket)) {
          break;
        }
        keys.add(ObjectIdentifier.builder().key(at.key()).build());
        end++;
      }
      String first = paths.get(start);
      DeleteObjectsResponse response =
          calls.run(
              "delete " + keys.size() + " objects from",
              first,
              S3Location.parse(first),
              () ->
                  client.deleteObjects(
                      b -> b.bucket(bucket).delete(d -> d.objects(keys).quiet(true))));
      if (response.hasErrors() && !response.errors().isEmpty()) {
        S3Error error = response.errors().get(0);
        throw new IOException(
            "Cannot delete s3://"
                + bucket
                + "/"
                + error.key()
                + ": S3 answered "
                + error.code()
                + (error.message() == null ? "" : " (" + error.message() + ")")
                + (response.errors().size() > 1
                    ? "; "
                        + (response.errors().size() - 1)
                        + " more key(s) of the same request failed"
                    : ""));
      }
      start = end;
    }
  }

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
    return locks.leaseOf(location).toString();
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
