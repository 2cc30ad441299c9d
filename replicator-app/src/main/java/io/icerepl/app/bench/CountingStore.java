package io.icerepl.app.bench;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/** Counts the files a run opens for reading, over any store. */
final class CountingStore implements ObjectStore {
  private final ObjectStore delegate;
  final AtomicLong opens = new AtomicLong();
  final AtomicLong lengthChecks = new AtomicLong();

  CountingStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  void reset() {
    opens.set(0);
    lengthChecks.set(0);
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    lengthChecks.incrementAndGet();
    return delegate.length(path);
  }

  @Override
  public InputStream open(String path) throws IOException {
    opens.incrementAndGet();
    return delegate.open(path);
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    opens.incrementAndGet();
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
  public void copyFrom(ObjectStore source, String sourcePath, String targetPath) throws IOException {
    delegate.copyFrom(source instanceof CountingStore c ? c.delegate : source, sourcePath, targetPath);
  }

  @Override
  public List<String> list(String folder) throws IOException {
    return delegate.list(folder);
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    return delegate.listFolders(folder);
  }

  @Override
  public Lock lock(String location) throws IOException {
    return delegate.lock(location);
  }

  @Override
  public void delete(String path) throws IOException {
    delegate.delete(path);
  }
}
