package io.icerepl.app.engine.catalog;

import io.icerepl.copier.store.IoErrors;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The FileIO the catalogs' clients read and write metadata files with: Iceberg's S3FileIO for
 * {@code s3://} paths, the local file system for {@code file:} and plain paths. Iceberg's Hadoop
 * FileIO is not used: it logs in through Hadoop's security stack, which the service does not ship.
 * A file keeps the location it was named by, so a catalog's metadata location reads back as
 * written.
 */
public final class CatalogFileIO implements FileIO {
  private Map<String, String> properties = Map.of();
  private S3FileIO s3;

  @Override
  public void initialize(Map<String, String> catalogProperties) {
    this.properties = Map.copyOf(catalogProperties);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public InputFile newInputFile(String path) {
    return isS3(path) ? s3().newInputFile(path) : new LocalInput(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return isS3(path) ? s3().newInputFile(path, length) : new LocalInput(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return isS3(path) ? s3().newOutputFile(path) : new LocalOutput(path);
  }

  @Override
  public void deleteFile(String path) {
    if (isS3(path)) {
      s3().deleteFile(path);
      return;
    }
    try {
      Files.deleteIfExists(local(path).toPath());
    } catch (IOException e) {
      throw new UncheckedIOException(IoErrors.cannot("delete", path, e), e);
    }
  }

  @Override
  public synchronized void close() {
    if (s3 != null) {
      s3.close();
      s3 = null;
    }
  }

  private synchronized S3FileIO s3() {
    if (s3 == null) {
      S3FileIO io = new S3FileIO();
      io.initialize(properties);
      s3 = io;
    }
    return s3;
  }

  private static boolean isS3(String path) {
    String lower = path.toLowerCase(Locale.ROOT);
    return lower.startsWith("s3://") || lower.startsWith("s3a://") || lower.startsWith("s3n://");
  }

  /** {@code file:/x}, {@code file:///x} and {@code /x} are the same file. */
  static File local(String path) {
    return path.startsWith("file:") ? new File(URI.create(path)) : new File(path);
  }

  private static final class LocalInput implements InputFile {
    private final String location;
    private final InputFile file;

    LocalInput(String location) {
      this.location = location;
      this.file = org.apache.iceberg.Files.localInput(local(location));
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      return file.newStream();
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return file.exists();
    }
  }

  private static final class LocalOutput implements OutputFile {
    private final String location;
    private final OutputFile file;

    LocalOutput(String location) {
      this.location = location;
      this.file = org.apache.iceberg.Files.localOutput(local(location));
    }

    @Override
    public PositionOutputStream create() {
      return file.create();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return file.createOrOverwrite();
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new LocalInput(location);
    }
  }
}
