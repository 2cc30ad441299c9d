package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.catalog.SourceCatalog.Run;
import io.icerepl.app.scenario.ReplicaVerifier;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JDBC catalog (a SQLite file) whose warehouse is on the embedded S3, replicated with {@code
 * --source-catalog} to an s3:// target: the command's --endpoint, --path-style and region reach the
 * catalog's S3FileIO, so the catalog's properties name no S3 setting.
 */
class S3CatalogSourceTest {
  private static final String REPLICA = "s3://replica/warehouse/sales/orders";

  @TempDir Path dir;

  @BeforeEach
  void credentials() {
    // the default credentials chain of the command's S3 clients and the catalog's S3FileIO
    System.setProperty("aws.accessKeyId", EmbeddedS3.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", EmbeddedS3.SECRET_KEY);
  }

  @AfterEach
  void noCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  @Test
  void aJdbcCatalogOverS3IsReplicatedToS3WithTheCommandsS3Settings() throws Exception {
    String database = "jdbc:sqlite:" + dir.resolve("catalog.db");
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        JdbcCatalog writer = new JdbcCatalog();
        S3FileIO io = new S3FileIO()) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Map<String, String> s3Properties = EmbeddedS3FileIO.properties(s3);
      Map<String, String> writerProperties = new java.util.HashMap<>(s3Properties);
      writerProperties.put(CatalogProperties.URI, database);
      writerProperties.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://source/warehouse");
      writerProperties.put(CatalogProperties.FILE_IO_IMPL, S3FileIO.class.getName());
      writer.initialize("lake", writerProperties);
      io.initialize(s3Properties);
      writer.createNamespace(Namespace.of("sales"));
      Table table =
          writer.createTable(
              TableIdentifier.of("sales", "orders"),
              Scenario.SCHEMA,
              PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
              Map.of(TableProperties.FORMAT_VERSION, "2"));
      ScenarioTable source = ScenarioTable.of("orders", table.location(), table);
      assertThat(source.location()).startsWith("s3://source/warehouse/");
      String catalog = "name=lake,type=jdbc,uri=" + database + ",warehouse=s3://source/warehouse";
      String[] s3Options = {"--endpoint", s3.endpoint().toString(), "--path-style"};

      DataFile first = source.append(source.row(1, "a", "x"), source.row(2, "b", "x")).get(0);
      source.append(source.row(3, "c", "y"));
      replicateAndVerify(catalog, s3Options, source, io);

      source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, first, 1));
      source
          .table()
          .manageSnapshots()
          .createTag("audited", source.table().currentSnapshot().snapshotId())
          .commit();
      source.append(source.row(4, "d", "z"));
      replicateAndVerify(catalog, s3Options, source, io);
    }
  }

  private void replicateAndVerify(
      String catalog, String[] s3Options, ScenarioTable source, S3FileIO io) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "replicate",
                "--source-catalog",
                catalog,
                "--source-table",
                "sales.orders",
                "--target",
                REPLICA));
    args.addAll(List.of(s3Options));
    Run run = Run.of(args.toArray(String[]::new));
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("source             lake:sales.orders");

    String metadataFile = "s3://replica/warehouse/sales/orders/metadata/" + versionHint(io);
    Table replica = new BaseTable(new StaticTableOperations(metadataFile, io), "replica");
    source.record();
    List<String> problems = new ReplicaVerifier().readProblems(source.expectations(), replica);
    problems.addAll(sourcePaths(replica, io, metadataFile));
    assertThat(problems).as("replica %s", metadataFile).isEmpty();
  }

  private static String versionHint(S3FileIO io) {
    return "v" + read(io, REPLICA + "/metadata/version-hint.text").trim() + ".metadata.json";
  }

  /** Every path of the replica's metadata, manifest lists, manifests and files not under it. */
  private static List<String> sourcePaths(Table replica, S3FileIO io, String metadataFile) {
    List<String> outside = new ArrayList<>();
    if (read(io, metadataFile).contains("s3://source/")) {
      outside.add(metadataFile + " names a source path");
    }
    outside.addAll(TablePaths.outside(replica, io, REPLICA));
    return outside;
  }

  private static String read(S3FileIO io, String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
