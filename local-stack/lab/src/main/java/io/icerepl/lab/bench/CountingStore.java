package io.icerepl.lab.bench;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/** Counts the files a run opens for reading, over any store. */
final class CountingStore extends ForwardingObjectStore {
  final AtomicLong opens = new AtomicLong();
  final AtomicLong lengthChecks = new AtomicLong();

  CountingStore(ObjectStore delegate) {
    super(delegate);
  }

  void reset() {
    opens.set(0);
    lengthChecks.set(0);
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    lengthChecks.incrementAndGet();
    return super.length(path);
  }

  @Override
  public InputStream open(String path) throws IOException {
    opens.incrementAndGet();
    return super.open(path);
  }

  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    opens.incrementAndGet();
    return super.readVersioned(path);
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    opens.incrementAndGet();
    return super.openSeekable(path);
  }
}
