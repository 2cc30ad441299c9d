package io.icerepl.localstack;

import com.google.cloud.ReadChannel;
import com.google.cloud.RestorableState;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.OptionalLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link Storage} around the in-process fake of {@code LocalStorageHelper} that enforces the
 * generation preconditions the way GCS documents them, which the fake does not: real GCS checks
 * {@code ifGenerationMatch} (0 meaning "no live object") on the server, in one step with the write,
 * read or delete it guards, and refuses a failed one with 412. Tests of conditional writes run on
 * this; everything else is the fake's own.
 *
 * <p>What it adds, each for a gap of the fake (see {@code docs/stores/gcs.md}):
 *
 * <ul>
 *   <li>Preconditions on {@code create}, {@code writer}, {@code delete}, {@code readAllBytes} and
 *       {@code reader}: the fake throws on them ({@code create}), answers 404 or a wrapped {@code
 *       FileAlreadyExistsException} ({@code writer}) or ignores them (the rest). Here a mismatch is
 *       412; {@code writer} is checked when the upload starts and again when it is finalized.
 *   <li>One call at a time: the fake is not thread-safe (plain hash maps), and GCS applies a
 *       precondition and its write as one step. Reads through a reader take the same lock.
 *   <li>A generation for every write: the fake's {@code create} gives the object none, its upload
 *       the clock's millisecond. Here {@code create} is stored through the fake's upload, and one
 *       upload at most finishes per millisecond, so every write gets a new, larger generation.
 *   <li>An upload's object appears when the upload is finalized: the fake makes it visible (without
 *       a size) as soon as the upload starts and keeps it when the upload is abandoned. Here the
 *       bytes are held until the channel closes and then uploaded through the fake; an upload never
 *       closed leaves nothing.
 * </ul>
 */
public final class PreconditionEnforcingStorage implements java.lang.reflect.InvocationHandler {
  private static final Pattern GENERATION_MATCH =
      Pattern.compile("GenerationMatch\\{key=IF_GENERATION_MATCH, val=(\\d+)\\}");

  private final Storage fake;
  private final ReentrantLock lock = new ReentrantLock();
  private long lastFinalizedMs;

  private PreconditionEnforcingStorage(Storage fake) {
    this.fake = fake;
  }

  /**
   * A new in-process GCS: {@code LocalStorageHelper}'s fake, as Iceberg's own GCSFileIO tests use
   * it, with generation preconditions enforced. No GCS server or emulator is reachable here.
   */
  public static Storage inProcess() {
    return around(LocalStorageHelper.getOptions().getService());
  }

  /** {@code fake} with generation preconditions enforced. */
  public static Storage around(Storage fake) {
    return (Storage)
        Proxy.newProxyInstance(
            Storage.class.getClassLoader(),
            new Class<?>[] {Storage.class},
            new PreconditionEnforcingStorage(fake));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "equals" -> proxy == args[0];
        case "hashCode" -> System.identityHashCode(proxy);
        default -> "PreconditionEnforcingStorage(" + fake + ")";
      };
    }
    lock.lock();
    try {
      return switch (method.getName()) {
        case "create" -> create(method, args);
        case "writer" -> writer(method, args);
        case "delete" -> delete(method, args);
        case "readAllBytes" -> readAllBytes(method, args);
        case "reader" -> reader(method, args);
        default -> call(method, args);
      };
    } finally {
      lock.unlock();
    }
  }

  private Object create(Method method, Object[] args) throws Throwable {
    if (args.length != 3 || !(args[0] instanceof BlobInfo info) || !(args[1] instanceof byte[])) {
      return call(method, args);
    }
    BlobId id = plain(info.getBlobId());
    check(id, precondition((Object[]) args[2]));
    upload(id, (byte[]) args[1], 0);
    return fake.get(id);
  }

  private Object writer(Method method, Object[] args) throws Throwable {
    if (args.length != 2 || !(args[0] instanceof BlobInfo info)) {
      return call(method, args);
    }
    BlobId id = plain(info.getBlobId());
    OptionalLong expected = precondition((Object[]) args[1]);
    check(id, expected);
    return new FinalizedOnClose(id, expected);
  }

  private Object delete(Method method, Object[] args) throws Throwable {
    if (args.length != 2 || !(args[0] instanceof BlobId given)) {
      return call(method, args);
    }
    BlobId id = plain(given);
    if (fake.get(id) == null) {
      return false; // GCS answers 404, which the client library returns as false
    }
    check(id, precondition((Object[]) args[1]));
    return fake.delete(id);
  }

  private Object readAllBytes(Method method, Object[] args) throws Throwable {
    if (args.length != 2 || !(args[0] instanceof BlobId given)) {
      return call(method, args);
    }
    BlobId id = plain(given);
    if (fake.get(id) != null) {
      check(id, precondition((Object[]) args[1]));
    }
    return fake.readAllBytes(id);
  }

  private Object reader(Method method, Object[] args) throws Throwable {
    if (args.length != 2 || !(args[0] instanceof BlobId given)) {
      return call(method, args);
    }
    BlobId id = plain(given);
    if (fake.get(id) != null) {
      check(id, precondition((Object[]) args[1]));
    }
    return new LockedReader(fake.reader(id));
  }

  private Object call(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(fake, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** The generation an {@code ifGenerationMatch} option names; any other option is refused. */
  private static OptionalLong precondition(Object[] options) {
    OptionalLong generation = OptionalLong.empty();
    for (Object option : options) {
      Matcher match = GENERATION_MATCH.matcher(option.toString());
      if (!match.find()) {
        throw new UnsupportedOperationException(
            "PreconditionEnforcingStorage knows ifGenerationMatch alone, not " + option);
      }
      generation = OptionalLong.of(Long.parseLong(match.group(1)));
    }
    return generation;
  }

  /** GCS's answer to a precondition that does not hold: 412. */
  private void check(BlobId id, OptionalLong expected) {
    if (expected.isEmpty()) {
      return;
    }
    Blob now = fake.get(id);
    long generation = now == null ? 0 : now.getGeneration();
    if (generation != expected.getAsLong()) {
      throw new StorageException(
          412,
          "conditionNotMet: "
              + id.getName()
              + " is at generation "
              + generation
              + ", not "
              + expected.getAsLong(),
          "conditionNotMet",
          null);
    }
  }

  /**
   * Uploads through the fake, which gives the object the clock's millisecond as its generation:
   * waits for a millisecond no earlier upload finished in, so generations never repeat.
   */
  private void upload(BlobId id, byte[] content, int chunkSize) throws IOException {
    while (System.currentTimeMillis() <= lastFinalizedMs) {
      Thread.onSpinWait();
    }
    try (WriteChannel channel = fake.writer(BlobInfo.newBuilder(id).build())) {
      if (chunkSize > 0) {
        channel.setChunkSize(chunkSize);
      }
      ByteBuffer bytes = ByteBuffer.wrap(content);
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    }
    lastFinalizedMs = System.currentTimeMillis();
  }

  private static BlobId plain(BlobId id) {
    return BlobId.of(id.getBucket(), id.getName());
  }

  /** An upload that reaches the fake only when closed, checked again then as GCS does. */
  private final class FinalizedOnClose implements WriteChannel {
    private final BlobId id;
    private final OptionalLong expected;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private int chunkSize;
    private boolean open = true;

    FinalizedOnClose(BlobId id, OptionalLong expected) {
      this.id = id;
      this.expected = expected;
    }

    @Override
    public void setChunkSize(int chunkSize) {
      this.chunkSize = chunkSize;
    }

    @Override
    public RestorableState<WriteChannel> capture() {
      throw new UnsupportedOperationException("capture");
    }

    @Override
    public int write(ByteBuffer src) {
      int n = src.remaining();
      byte[] chunk = new byte[n];
      src.get(chunk);
      bytes.write(chunk, 0, n);
      return n;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public void close() throws IOException {
      if (!open) {
        return;
      }
      open = false;
      lock.lock();
      try {
        check(id, expected);
        upload(id, bytes.toByteArray(), chunkSize);
      } finally {
        lock.unlock();
      }
    }
  }

  /** The fake's reader, each call under the lock every other call takes. */
  private final class LockedReader implements ReadChannel {
    private final ReadChannel reader;

    LockedReader(ReadChannel reader) {
      this.reader = reader;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      lock.lock();
      try {
        return reader.read(dst);
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void seek(long position) throws IOException {
      reader.seek(position);
    }

    @Override
    public ReadChannel limit(long limit) {
      reader.limit(limit);
      return this;
    }

    @Override
    public long limit() {
      return reader.limit();
    }

    @Override
    public void setChunkSize(int chunkSize) {
      reader.setChunkSize(chunkSize);
    }

    @Override
    public RestorableState<ReadChannel> capture() {
      throw new UnsupportedOperationException("capture");
    }

    @Override
    public boolean isOpen() {
      return reader.isOpen();
    }

    @Override
    public void close() {
      reader.close();
    }
  }
}
