package io.icerepl.app.engine;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * A real local store that dies like a crashed process: the first write whose path matches fails,
 * and from then on nothing is written or deleted, so whatever was in place stays as a crash would
 * leave it.
 */
public final class FaultInjectingStore extends ForwardingObjectStore {
  private final Predicate<String> failOn;
  private final Predicate<String> failOnDelete;
  private volatile boolean crashed;

  /** Crashes at the first write to a path that matches. */
  public FaultInjectingStore(Predicate<String> failOn) {
    this(failOn, path -> false);
  }

  private FaultInjectingStore(Predicate<String> failOn, Predicate<String> failOnDelete) {
    super(new LocalObjectStore());
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
  public long write(String path, Writer writer) throws IOException {
    check(path);
    return super.write(path, writer);
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    check(path);
    return super.createIfAbsent(path, content);
  }

  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    check(path);
    return super.createIfAbsent(path, writer);
  }

  @Override
  public java.util.Optional<ObjectVersion> replaceIf(
      String path, java.util.Optional<ObjectVersion> expected, byte[] content) throws IOException {
    check(path);
    return super.replaceIf(path, expected, content);
  }

  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    check(targetPath);
    return super.copyFrom(source, sourcePath, targetPath, recordedLength);
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
    super.delete(path);
  }

  /** One at a time, so a crash falls between two deletes as a process's would. */
  @Override
  public void deleteAll(List<String> paths) throws IOException {
    for (String path : paths) {
      delete(path);
    }
  }
}
