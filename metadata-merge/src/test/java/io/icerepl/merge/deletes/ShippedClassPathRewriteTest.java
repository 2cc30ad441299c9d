package io.icerepl.merge.deletes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.io.ByteArraySeekableInput;
import io.icerepl.merge.io.SeekableInput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.data.orc.GenericOrcReader;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.orc.ORC;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Parquet, Avro and ORC rewriters run on the class path the service ships, which leaves most of
 * Hadoop's dependencies and the native zstd and snappy libraries out: they run here in a class
 * loader holding only this module's classes and its runtime dependencies, without the test
 * libraries that bring Hadoop's login classes.
 */
class ShippedClassPathRewriteTest {
  private static final String SOURCE = "s3://source-bucket/warehouse/db/tbl";
  private static final String DATA_FILE = SOURCE + "/data/00000-a.parquet";
  private static final int ROWS = 100;
  private static final Function<String, String> MAP_PATH =
      path -> DeleteFixtures.TARGET + path.substring(SOURCE.length());

  @TempDir Path dir;

  /** Every codec Iceberg writes delete files with; zstd is its Parquet default. */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "PARQUET, zstd",
    "PARQUET, snappy",
    "PARQUET, gzip",
    "PARQUET, uncompressed",
    "AVRO, zstd",
    "AVRO, snappy",
    "AVRO, gzip",
    "ORC, zstd",
    "ORC, snappy",
    "ORC, zlib"
  })
  void rewritesPositionDeletesWithoutTheExcludedHadoopAndNativeCodecDependencies(
      FileFormat format, String codec) throws Exception {
    Path deletes = writeDeletes(format, codec);
    ByteArrayOutputStream rewritten = new ByteArrayOutputStream();

    try (URLClassLoader shipped = shippedClassLoader()) {
      rewriteIn(shipped, format.name(), Files.readAllBytes(deletes), rewritten);
    }

    Path replica = DeleteFixtures.save(dir, "replica." + format.name(), rewritten);
    List<Record> rows = readWithIceberg(format, replica);
    assertThat(rows).hasSize(ROWS);
    for (int i = 0; i < ROWS; i++) {
      assertThat(rows.get(i).getField("file_path")).isEqualTo(MAP_PATH.apply(DATA_FILE));
      assertThat(rows.get(i).getField("pos")).isEqualTo((long) i);
    }
  }

  @Test
  void shippedClassPathLacksHadoopLogin() throws IOException {
    try (URLClassLoader shipped = shippedClassLoader()) {
      assertThatThrownBy(
              () ->
                  shipped.loadClass("org.apache.hadoop.security.authentication.util.KerberosName"))
          .isInstanceOf(ClassNotFoundException.class);
    }
  }

  @Test
  void shippedClassPathLacksNativeZstdAndSnappy() throws IOException {
    try (URLClassLoader shipped = shippedClassLoader()) {
      assertThatThrownBy(() -> shipped.loadClass("com.github.luben.zstd.Zstd"))
          .isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> shipped.loadClass("org.xerial.snappy.Snappy"))
          .isInstanceOf(ClassNotFoundException.class);
    }
  }

  private Path writeDeletes(FileFormat format, String codec) throws IOException {
    Path file = dir.resolve("deletes." + format.name().toLowerCase());
    OutputFile out = org.apache.iceberg.Files.localOutput(file.toFile());
    PositionDeleteWriter<Record> writer =
        switch (format) {
          case PARQUET ->
              Parquet.writeDeletes(out)
                  .set(TableProperties.DELETE_PARQUET_COMPRESSION, codec)
                  .metricsConfig(MetricsConfig.forPositionDelete())
                  .withSpec(PartitionSpec.unpartitioned())
                  .overwrite()
                  .buildPositionWriter();
          case AVRO ->
              Avro.writeDeletes(out)
                  .set(TableProperties.DELETE_AVRO_COMPRESSION, codec)
                  .metricsConfig(MetricsConfig.forPositionDelete())
                  .withSpec(PartitionSpec.unpartitioned())
                  .overwrite()
                  .buildPositionWriter();
          case ORC ->
              ORC.writeDeletes(out)
                  .set(TableProperties.DELETE_ORC_COMPRESSION, codec)
                  .metricsConfig(MetricsConfig.forPositionDelete())
                  .withSpec(PartitionSpec.unpartitioned())
                  .overwrite()
                  .buildPositionWriter();
          default -> throw new IllegalArgumentException(format.name());
        };
    try (writer) {
      for (int i = 0; i < ROWS; i++) {
        writer.write(DeleteFixtures.positionDelete(DATA_FILE, i, null));
      }
    }
    return file;
  }

  private static List<Record> readWithIceberg(FileFormat format, Path file) throws IOException {
    Schema schema = DeleteSchemaUtil.pathPosSchema();
    InputFile in = org.apache.iceberg.Files.localInput(file.toFile());
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> reader =
        switch (format) {
          case PARQUET ->
              Parquet.read(in)
                  .project(schema)
                  .createReaderFunc(
                      fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                  .build();
          case AVRO ->
              Avro.read(in)
                  .project(schema)
                  .createResolvingReader(PlannedDataReader::create)
                  .build();
          default ->
              ORC.read(in)
                  .project(schema)
                  .createReaderFunc(fileSchema -> GenericOrcReader.buildReader(schema, fileSchema))
                  .build();
        }) {
      reader.forEach(r -> records.add(r.copy()));
    }
    return records;
  }

  private static void rewriteIn(ClassLoader loader, String format, byte[] deletes, OutputStream out)
      throws Exception {
    Class<?> inputType = loader.loadClass(SeekableInput.class.getName());
    Object input =
        loader
            .loadClass(ByteArraySeekableInput.class.getName())
            .getConstructor(byte[].class)
            .newInstance((Object) deletes);
    Method rewrite =
        loader
            .loadClass(PositionDeleteRewriter.class.getName())
            .getMethod(
                "rewrite",
                String.class,
                inputType,
                OutputStream.class,
                String.class,
                Function.class);
    // ORC finds its key providers through the context class loader
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      rewrite.invoke(null, format, input, out, "deletes." + format, MAP_PATH);
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** This module's classes and the runtime class path Maven wrote before the tests. */
  private static URLClassLoader shippedClassLoader() throws IOException {
    List<URL> urls = new ArrayList<>();
    urls.add(Path.of("target/classes").toUri().toURL());
    String classPath = Files.readString(Path.of("target/runtime-classpath.txt")).strip();
    for (String entry : classPath.split(System.getProperty("path.separator"))) {
      urls.add(Path.of(entry).toUri().toURL());
    }
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }
}
