package io.icerepl.copier.store;

import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the calls made through a store by the S3 request each one is, to measure what a run or a
 * reconciliation pass costs: listings, reads, length checks, writes and copies, deletes, and table
 * leases; and remembers which objects were read.
 */
public final class RequestCountingStore extends ForwardingObjectStore {
  /** The kind of request a call makes. */
  public enum Kind {
    LIST,
    GET,
    HEAD,
    PUT,
    DELETE,
    LEASE
  }

  private final Map<Kind, AtomicLong> counts = new EnumMap<>(Kind.class);
  private final Queue<String> reads = new ConcurrentLinkedQueue<>();

  public RequestCountingStore(ObjectStore delegate) {
    super(delegate);
    for (Kind kind : Kind.values()) {
      counts.put(kind, new AtomicLong());
    }
  }

  public long count(Kind kind) {
    return counts.get(kind).get();
  }

  /** The objects read (GET) since the last reset, in order, a path once per read. */
  public List<String> reads() {
    return List.copyOf(reads);
  }

  public void reset() {
    counts.values().forEach(c -> c.set(0));
    reads.clear();
  }

  private void count(Kind kind, String path) {
    counts.get(kind).incrementAndGet();
    if (kind == Kind.GET) {
      reads.add(path);
    }
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    count(Kind.HEAD, path);
    return super.length(path);
  }

  @Override
  public Optional<ObjectInfo> info(String path) throws IOException {
    count(Kind.HEAD, path);
    return super.info(path);
  }

  @Override
  public InputStream open(String path) throws IOException {
    count(Kind.GET, path);
    return super.open(path);
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    count(Kind.GET, path);
    return super.openSeekable(path);
  }

  @Override
  public long write(String path, Writer writer) throws IOException {
    count(Kind.PUT, path);
    return super.write(path, writer);
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    count(Kind.PUT, path);
    return super.createIfAbsent(path, content);
  }

  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    count(Kind.PUT, path);
    return super.createIfAbsent(path, writer);
  }

  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    count(Kind.GET, path);
    return super.readVersioned(path);
  }

  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    count(Kind.PUT, path);
    return super.replaceIf(path, expected, content);
  }

  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    count(Kind.PUT, targetPath);
    return super.copyFrom(source, sourcePath, targetPath, recordedLength);
  }

  @Override
  public void listLengths(String folder, LengthConsumer each) throws IOException {
    count(Kind.LIST, folder);
    super.listLengths(folder, each);
  }

  @Override
  public void listLengths(String folder, String namePrefix, LengthConsumer each)
      throws IOException {
    count(Kind.LIST, folder);
    super.listLengths(folder, namePrefix, each);
  }

  @Override
  public List<String> list(String folder) throws IOException {
    count(Kind.LIST, folder);
    return super.list(folder);
  }

  @Override
  public List<Entry> listEntries(String folder) throws IOException {
    count(Kind.LIST, folder);
    return super.listEntries(folder);
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    count(Kind.LIST, folder);
    return super.listFolders(folder);
  }

  @Override
  public Lock lock(String location) throws IOException {
    count(Kind.LEASE, location);
    return super.lock(location);
  }

  @Override
  public void delete(String path) throws IOException {
    count(Kind.DELETE, path);
    super.delete(path);
  }

  @Override
  public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    count(Kind.DELETE, path);
    return super.deleteIf(path, expected);
  }

  /** One DELETE per object, whether the store deletes them one by one or in batches. */
  @Override
  public void deleteAll(List<String> paths) throws IOException {
    paths.forEach(path -> count(Kind.DELETE, path));
    super.deleteAll(paths);
  }
}
