package io.icerepl.app.replicate;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * A real local store that dies like a crashed process: the first write whose path matches fails,
 * and from then on nothing is written or deleted, so whatever was in place stays as a crash would
 * leave it.
 */
final class FaultInjectingStore implements ObjectStore {
  private final ObjectStore delegate = new LocalObjectStore();
  private final Predicate<String> failOn;
  private volatile boolean crashed;

  FaultInjectingStore(Predicate<String> failOn) {
    this.failOn = failOn;
  }

  boolean crashed() {
    return crashed;
  }

  private void check(String path) throws IOException {
    if (crashed || failOn.test(path)) {
      crashed = true;
      throw new IOException("injected crash writing " + path);
    }
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    return delegate.length(path);
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
    check(path);
    return delegate.write(path, writer);
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    check(path);
    return delegate.createIfAbsent(path, content);
  }

  @Override
  public void copyFrom(ObjectStore source, String sourcePath, String targetPath) throws IOException {
    check(targetPath);
    delegate.copyFrom(source, sourcePath, targetPath);
  }

  @Override
  public List<String> list(String folder) throws IOException {
    return delegate.list(folder);
  }

  @Override
  public Lock lock(String location) throws IOException {
    return delegate.lock(location);
  }

  @Override
  public void delete(String path) throws IOException {
    if (crashed) {
      throw new IOException("crashed: not deleting " + path);
    }
    delegate.delete(path);
  }
}
