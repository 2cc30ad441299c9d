package io.icerepl.app.engine;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.fixtures.IdAppends;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.types.Types;

/**
 * What the command-line tests on the embedded S3 share: the credentials the commands' S3 clients
 * take from the default chain, a source table written with the Iceberg library, the command run
 * in-process, and a reader of a replica's metadata file.
 */
public final class S3CommandFixture {
  private S3CommandFixture() {}

  /** One command line run: its exit code and what it printed on each stream. */
  public record Run(int exit, String out, String err) {}

  /** Runs the command line in-process. */
  public static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** Where {@link #replicateToReplicaBucket} puts the replica. */
  public static final String REPLICA = "s3://replica/warehouse/ns/t";

  /**
   * {@code replicate} of {@code table} to {@link #REPLICA} on {@code s3}, settling at once, with
   * the {@code options} given besides.
   */
  public static Run replicateToReplicaBucket(EmbeddedS3 s3, Table table, String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "replicate",
                "--source",
                table.location(),
                "--target",
                REPLICA,
                "--endpoint",
                s3.endpoint().toString(),
                "--path-style",
                "--settle-time",
                "0s"));
    args.addAll(List.of(options));
    return run(args.toArray(String[]::new));
  }

  /** The embedded S3's keys, where the default credentials chain reads them: system properties. */
  public static void setCredentials() {
    System.setProperty("aws.accessKeyId", EmbeddedS3.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", EmbeddedS3.SECRET_KEY);
  }

  public static void clearCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  /** A warehouse on {@code s3} at {@code location}, e.g. {@code s3://source/warehouse}. */
  public static S3Warehouse warehouse(EmbeddedS3 s3, String location) {
    return new S3Warehouse(
        location, s3.endpoint(), "us-east-1", EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY);
  }

  /**
   * Table {@code ns.t} of {@code warehouse}, format v2, {@code id} only: three appends of a row.
   */
  public static Table threeAppends(S3Warehouse warehouse) {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Table table =
        warehouse.create(
            "ns", "t", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    IdAppends.appendEach(table, 3);
    return table;
  }

  /** The table one metadata file describes, as a reader opening it by path sees it. */
  public static Table load(S3FileIO io, String metadataFile) {
    return new BaseTable(new StaticTableOperations(metadataFile, io), metadataFile);
  }
}
