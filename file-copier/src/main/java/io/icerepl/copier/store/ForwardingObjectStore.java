package io.icerepl.copier.store;

import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An {@link ObjectStore} that hands every call to another, the interface's default methods too, so
 * a store's own way of doing them (S3's upload of a large create from a temporary file, its batch
 * delete) is kept behind a wrapper. Subclasses override what they watch; one that watches a call
 * with two forms ({@code createIfAbsent} from bytes or from a writer, {@code delete} and {@code
 * deleteAll}) overrides both, since each form goes to the delegate directly.
 */
public abstract class ForwardingObjectStore implements ObjectStore {
  private final ObjectStore delegate;

  protected ForwardingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  protected ObjectStore delegate() {
    return delegate;
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    return delegate.length(path);
  }

  @Override
  public Optional<ObjectInfo> info(String path) throws IOException {
    return delegate.info(path);
  }

  @Override
  public InputStream open(String path) throws IOException {
    return delegate.open(path);
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    return delegate.openSeekable(path);
  }

  @Override
  public long write(String path, Writer writer) throws IOException {
    return delegate.write(path, writer);
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    return delegate.createIfAbsent(path, content);
  }

  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    return delegate.createIfAbsent(path, writer);
  }

  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    return delegate.readVersioned(path);
  }

  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    return delegate.replaceIf(path, expected, content);
  }

  @Override
  public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    return delegate.deleteIf(path, expected);
  }

  /** Copies from the store {@code source} forwards to, so a server-side copy stays possible. */
  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    ObjectStore unwrapped = source instanceof ForwardingObjectStore f ? f.delegate() : source;
    return delegate.copyFrom(unwrapped, sourcePath, targetPath, recordedLength);
  }

  @Override
  public List<String> list(String folder) throws IOException {
    return delegate.list(folder);
  }

  @Override
  public List<Entry> listEntries(String folder) throws IOException {
    return delegate.listEntries(folder);
  }

  @Override
  public void listLengths(String folder, LengthConsumer each) throws IOException {
    delegate.listLengths(folder, each);
  }

  @Override
  public void listLengths(String folder, String namePrefix, LengthConsumer each)
      throws IOException {
    delegate.listLengths(folder, namePrefix, each);
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    return delegate.listFolders(folder);
  }

  @Override
  public void checkResolvesUnder(String path, String root) throws IOException {
    delegate.checkResolvesUnder(path, root);
  }

  @Override
  public Lock lock(String location) throws IOException {
    return delegate.lock(location);
  }

  @Override
  public void delete(String path) throws IOException {
    delegate.delete(path);
  }

  @Override
  public void deleteAll(List<String> paths) throws IOException {
    delegate.deleteAll(paths);
  }
}
