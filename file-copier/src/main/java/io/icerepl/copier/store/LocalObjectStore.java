package io.icerepl.copier.store;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.TableBusyException;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLocation;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Local files. Writes go to a hidden temporary file beside the target, then move into place in one
 * step; {@link #createIfAbsent} hard-links instead, which fails when the name exists (a rename
 * would replace it). {@link #replaceIf} compares the content's digest and renames under a lock that
 * every thread and process writing the same file takes, so the compare and the rename are one step
 * for all of them.
 */
public final class LocalObjectStore implements ObjectStore {
  /** Threads of this process writing one file conditionally take the same stripe first. */
  private static final ReentrantLock[] REPLACE_STRIPES = new ReentrantLock[64];

  static {
    for (int i = 0; i < REPLACE_STRIPES.length; i++) {
      REPLACE_STRIPES[i] = new ReentrantLock();
    }
  }

  /** The local path for {@code file:/p}, {@code file:///p} or {@code /p}. */
  public static Path toPath(String path) {
    String canonical = PathMapping.canonical(path);
    if (!canonical.startsWith("/")) {
      throw new IllegalArgumentException("Cannot use " + path + " as a local path: not absolute");
    }
    return Path.of(canonical);
  }

  @Override
  public OptionalLong length(String path) throws IOException {
    Path p = toPath(path);
    try {
      return Files.isRegularFile(p) ? OptionalLong.of(Files.size(p)) : OptionalLong.empty();
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public InputStream open(String path) throws IOException {
    return Files.newInputStream(toPath(path));
  }

  @Override
  public SeekableInput openSeekable(String path) throws IOException {
    FileChannel channel = FileChannel.open(toPath(path), StandardOpenOption.READ);
    return new SeekableInput() {
      @Override
      public long length() throws IOException {
        return channel.size();
      }

      @Override
      public void readFully(long position, byte[] buffer, int offset, int length)
          throws IOException {
        ByteBuffer target = ByteBuffer.wrap(buffer, offset, length);
        long at = position;
        while (target.hasRemaining()) {
          int n = channel.read(target, at);
          if (n < 0) {
            throw new java.io.EOFException("Cannot read " + path + " at " + at + ": end of file");
          }
          at += n;
        }
      }

      @Override
      public void close() throws IOException {
        channel.close();
      }
    };
  }

  @Override
  public long write(String path, Writer writer) throws IOException {
    Path target = toPath(path);
    Path temp = tempBeside(target);
    try {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 256 * 1024)) {
        writer.writeTo(out);
      }
      long length = Files.size(temp);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      // a Hadoop writer (HadoopTables' version hint) leaves .<name>.crc beside its files, and
      // Hadoop's local file system checks it on every read: replaced content makes it a stale
      // checksum that fails the read, so it goes with the content it described
      Files.deleteIfExists(target.resolveSibling("." + target.getFileName() + ".crc"));
      return length;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  @Override
  public boolean createIfAbsent(String path, byte[] content) throws IOException {
    Path target = toPath(path);
    Path temp = tempBeside(target);
    try {
      Files.write(temp, content);
      Files.createLink(target, temp);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Streams the content to the temporary file, then links it into place as above. */
  @Override
  public boolean createIfAbsent(String path, Writer writer) throws IOException {
    Path target = toPath(path);
    Path temp = tempBeside(target);
    try {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 256 * 1024)) {
        writer.writeTo(out);
      }
      Files.createLink(target, temp);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Resolves both paths' links ({@code toRealPath}): a link under the table's folder to {@code
   * /etc} is spelled as a table file but is not one. A missing file is left to the read that
   * follows.
   */
  @Override
  public void checkResolvesUnder(String path, String root) throws IOException {
    Path real;
    try {
      real = toPath(path).toRealPath();
    } catch (NoSuchFileException e) {
      return;
    }
    if (!real.startsWith(toPath(root).toRealPath())) {
      throw new BadInputException(
          "Cannot read file "
              + path
              + ": a symbolic link on its way leads out of "
              + root
              + ", to "
              + real);
    }
  }

  @Override
  public Optional<VersionedObject> readVersioned(String path) throws IOException {
    try {
      byte[] content = Files.readAllBytes(toPath(path));
      return Optional.of(new VersionedObject(content, versionOf(content)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * The new content goes to a temporary file first; then, under the file's replace lock, the
   * current content's digest is compared with {@code expected} and the temporary file renamed over
   * it. A writer that takes no lock ({@link #write}) is not fenced: the replicator's state and hint
   * are written only through here.
   */
  @Override
  public Optional<ObjectVersion> replaceIf(
      String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
    Path target = toPath(path);
    Path temp = tempBeside(target);
    try {
      Files.write(temp, content);
      boolean replaced =
          underReplaceLock(
              target,
              () -> {
                Optional<ObjectVersion> now =
                    readVersioned(target.toString()).map(VersionedObject::version);
                if (!now.equals(expected)) {
                  return false;
                }
                Files.move(
                    temp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
                Files.deleteIfExists(target.resolveSibling("." + target.getFileName() + ".crc"));
                return true;
              });
      return replaced ? Optional.of(versionOf(content)) : Optional.empty();
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Under the same replace lock as {@link #replaceIf}: the current content's digest is compared
   * with {@code expected}, and the file deleted only when they are equal.
   */
  @Override
  public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
    Path target = toPath(path);
    return underReplaceLock(
        target,
        () -> {
          Optional<ObjectVersion> now =
              readVersioned(target.toString()).map(VersionedObject::version);
          if (!now.equals(Optional.of(expected))) {
            return false;
          }
          if (!Files.deleteIfExists(target)) {
            return false;
          }
          Files.deleteIfExists(target.resolveSibling("." + target.getFileName() + ".crc"));
          return true;
        });
  }

  @FunctionalInterface
  private interface Guarded {
    boolean run() throws IOException;
  }

  /**
   * Runs {@code step} holding the replace lock of {@code target}: its stripe among this process's
   * threads, and the OS lock on its lock file among processes.
   */
  private static boolean underReplaceLock(Path target, Guarded step) throws IOException {
    ReentrantLock stripe =
        REPLACE_STRIPES[Math.floorMod(target.hashCode(), REPLACE_STRIPES.length)];
    stripe.lock();
    try (FileChannel lockFile =
            FileChannel.open(
                replaceLockOf(target), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = lockFile.lock()) {
      return step.run();
    } finally {
      stripe.unlock();
    }
  }

  private static ObjectVersion versionOf(byte[] content) {
    try {
      return new ObjectVersion(
          "sha256:"
              + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The lock file of conditional writes to {@code target}, in the temporary folder beside the table
   * locks: outside the table, so its readers never see it.
   */
  private static Path replaceLockOf(Path target) throws IOException {
    Path lockFile =
        Path.of(
            System.getProperty("java.io.tmpdir"),
            "iceberg-replicator-locks",
            sha256(target.toAbsolutePath().normalize().toString()) + ".replace");
    createFolders(lockFile.getParent());
    return lockFile;
  }

  @Override
  public OptionalLong copyFrom(
      ObjectStore source, String sourcePath, String targetPath, long recordedLength)
      throws IOException {
    if (source instanceof LocalObjectStore) {
      Path target = toPath(targetPath);
      Path temp = tempBeside(target);
      try {
        Files.copy(toPath(sourcePath), temp, StandardCopyOption.REPLACE_EXISTING);
        long length = Files.size(temp);
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return OptionalLong.of(length);
      } finally {
        Files.deleteIfExists(temp);
      }
    }
    return OptionalLong.of(
        write(
            targetPath,
            out -> {
              try (InputStream in = source.open(sourcePath)) {
                in.transferTo(out);
              }
            }));
  }

  @Override
  public List<String> list(String folder) throws IOException {
    Path dir = toPath(folder);
    List<String> names = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (Files.isRegularFile(entry)) {
          names.add(entry.getFileName().toString());
        }
      }
    }
    names.sort(null);
    return names;
  }

  /** One directory read: each regular file with its size. */
  @Override
  public void listLengths(String folder, LengthConsumer each) throws IOException {
    Path dir = toPath(folder);
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        BasicFileAttributes attributes;
        try {
          attributes = Files.readAttributes(entry, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue; // removed since the listing: not there
        }
        if (attributes.isRegularFile()) {
          each.accept(entry.getFileName().toString(), attributes.size());
        }
      }
    }
  }

  @Override
  public List<Entry> listEntries(String folder) throws IOException {
    List<Entry> entries = new ArrayList<>();
    for (String name : list(folder)) {
      try {
        entries.add(
            new Entry(name, Files.getLastModifiedTime(toPath(folder).resolve(name)).toMillis()));
      } catch (NoSuchFileException e) {
        // removed since the listing: not there
      }
    }
    return entries;
  }

  @Override
  public List<String> listFolders(String folder) throws IOException {
    Path dir = toPath(folder);
    List<String> names = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, Files::isDirectory)) {
      entries.forEach(entry -> names.add(entry.getFileName().toString()));
    }
    names.sort(null);
    return names;
  }

  @Override
  public void delete(String path) throws IOException {
    Files.deleteIfExists(toPath(path));
  }

  /**
   * An OS file lock on a file named after the location in the temporary folder: outside the table,
   * so the replica's files are untouched, and released by the OS if the process dies. The file
   * holds the last holding's fencing epoch; each holding writes one more, under the OS lock.
   */
  @Override
  public Lock lock(String location) throws IOException {
    String key = sha256(TableLocation.of(location).canonical());
    Path lockFile =
        Path.of(System.getProperty("java.io.tmpdir"), "iceberg-replicator-locks", key + ".lock");
    createFolders(lockFile.getParent());
    FileChannel channel =
        FileChannel.open(
            lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock held;
    try {
      held = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      held = null;
    }
    if (held == null) {
      channel.close();
      throw new TableBusyException(
          "Cannot lock table " + location + ": another replication or retention run holds it");
    }
    FileLock lock = held;
    long acquired;
    try {
      acquired = LockEpoch.next(channel, lockFile);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    return new Lock() {
      private long epoch = acquired;

      @Override
      public synchronized long epoch() {
        return epoch;
      }

      @Override
      public synchronized long raiseEpoch(long floor, String action) throws IOException {
        checkHeld(action);
        if (floor > epoch) {
          LockEpoch.write(channel, floor);
          epoch = floor;
        }
        return epoch;
      }

      @Override
      public void checkHeld(String action) {
        // an OS lock holds while its channel is open; only a closed one is lost
        if (!lock.isValid()) {
          throw new TableBusyException(
              "Cannot " + action + " of table " + location + ": its lock was released");
        }
      }

      @Override
      public void close() throws IOException {
        lock.release();
        channel.close();
      }
    };
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A hidden name no reader takes for a table file, in the target's folder (same file system). */
  private static Path tempBeside(Path target) throws IOException {
    createFolders(target.getParent());
    return target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
  }

  /**
   * Creates {@code folder} and its parents. A failure is a plain {@link IOException} that says
   * which folder and why: a {@link NoSuchFileException} from here would read as a missing source to
   * the callers that take it so.
   */
  private static void createFolders(Path folder) throws IOException {
    try {
      Files.createDirectories(folder);
    } catch (FileSystemException e) {
      throw new IOException("Cannot create folder " + IoErrors.describe(e), e);
    }
  }
}
