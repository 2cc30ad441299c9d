package io.icerepl.localstack;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * Iceberg tables in an S3 warehouse written with the Iceberg library (S3FileIO), the way an engine
 * with a catalog writes them: {@code <V>-<uuid>.metadata.json} files and no version hint, so the
 * replicator resolves their head as it must for catalog-managed tables. The catalog pointer lives
 * in memory: the tables are for demos and tests.
 */
public final class S3Warehouse implements AutoCloseable {
  private final S3FileIO io = new S3FileIO();
  private final String warehouse;

  /**
   * @param warehouse e.g. {@code s3://source/warehouse}
   * @param endpoint the S3 endpoint (e.g. the embedded one), or null for AWS
   */
  public S3Warehouse(
      String warehouse, URI endpoint, String region, String accessKeyId, String secretAccessKey) {
    this.warehouse = warehouse;
    Map<String, String> properties = new HashMap<>();
    properties.put("client.region", region);
    if (endpoint != null) {
      properties.put("s3.endpoint", endpoint.toString());
      properties.put("s3.path-style-access", "true");
    }
    if (accessKeyId != null) {
      properties.put("s3.access-key-id", accessKeyId);
      properties.put("s3.secret-access-key", secretAccessKey);
    }
    io.initialize(properties);
  }

  public Table create(
      String namespace,
      String name,
      Schema schema,
      PartitionSpec spec,
      Map<String, String> properties) {
    String location = location(namespace, name);
    PointerOperations operations = new PointerOperations(namespace + "." + name, io);
    operations.commit(
        null,
        TableMetadata.newTableMetadata(schema, spec, SortOrder.unsorted(), location, properties));
    return new BaseTable(operations, namespace + "." + name);
  }

  /**
   * Table {@code namespace.name} as its metadata file {@code metadataFile} describes it, committed
   * to from there on through this warehouse's in-memory pointer: for a writer that takes up a table
   * someone else wrote last (a table failed back and promoted again by the replicator).
   */
  public Table load(String namespace, String name, String metadataFile) {
    PointerOperations operations = new PointerOperations(namespace + "." + name, io);
    operations.pointer = metadataFile;
    return new BaseTable(operations, namespace + "." + name);
  }

  /** The warehouse's FileIO, e.g. to read a version hint. */
  public FileIO io() {
    return io;
  }

  /**
   * The sample table the live demo and the campaigns write: format v2, {@code id}, {@code
   * category}, {@code amount}, partitioned by {@code category}.
   */
  public Table createSample(String namespace, String name) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "category", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.DoubleType.get()));
    return create(
        namespace,
        name,
        schema,
        PartitionSpec.builderFor(schema).identity("category").build(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  /** The location of a table: {@code <warehouse>/<namespace>/<name>}. */
  public String location(String namespace, String name) {
    return (warehouse.endsWith("/") ? warehouse : warehouse + "/") + namespace + "/" + name;
  }

  /** The current metadata file of a table this warehouse wrote. */
  public static String metadataFile(Table table) {
    return ((BaseTable) table).operations().current().metadataFileLocation();
  }

  @Override
  public void close() {
    io.close();
  }

  /** A catalog pointer held in memory; metadata files are written through the FileIO. */
  private static final class PointerOperations extends BaseMetastoreTableOperations {
    private final String name;
    private final FileIO io;
    private volatile String pointer;

    PointerOperations(String name, FileIO io) {
      this.name = name;
      this.io = io;
    }

    @Override
    protected String tableName() {
      return name;
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    protected void doRefresh() {
      refreshFromMetadataLocation(pointer);
    }

    @Override
    protected synchronized void doCommit(TableMetadata base, TableMetadata metadata) {
      String expected = base == null ? null : base.metadataFileLocation();
      if (!Objects.equals(expected, pointer)) {
        throw new org.apache.iceberg.exceptions.CommitFailedException(
            "Cannot commit %s: stale metadata", name);
      }
      pointer = writeNewMetadataIfRequired(base == null, metadata);
    }
  }
}
