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
public final class FaultInjectingStore implements ObjectStore {
  private final ObjectStore delegate = new LocalObjectStore();
  private final Predicate<String> failOn;
  private final Predicate<String> failOnDelete;
  private volatile boolean crashed;

  /** Crashes at the first write to a path that matches. */
  public FaultInjectingStore(Predicate<String> failOn) {
    this(failOn, path -> false);
  }

  private FaultInjectingStore(Predicate<String> failOn, Predicate<String> failOnDelete) {
    this.failOn = failOn;
    this.failOnDelete = failOnDelete;
  }

  /** Crashes at the first delete: after a publish, before any file is removed. */
  public static FaultInjectingStore crashingAtFirstDelete() {
    return crashingAtFirstDeleteOf(path -> true);
  }

  /** Crashes at the first delete of a path that matches, after the deletes before it. */
  public static FaultInjectingStore crashingAtFirstDeleteOf(Predicate<String> path) {
    return new FaultInjectingStore(p -> false, path);
  }

  public boolean crashed() {
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
  public List<String> listFolders(String folder) throws IOException {
    return delegate.listFolders(folder);
  }

  @Override
  public Lock lock(String location) throws IOException {
    return delegate.lock(location);
  }

  @Override
  public void delete(String path) throws IOException {
    if (!crashed && failOnDelete.test(path)) {
      crashed = true;
      throw new IOException("injected crash deleting " + path);
    }
    if (crashed) {
      throw new IOException("crashed: not deleting " + path);
    }
    delegate.delete(path);
  }
}
