package io.icerepl.merge.model;

/** Field names of the table metadata JSON, as the Iceberg spec spells them. */
public final class TableMetadataFields {
  private TableMetadataFields() {}

  public static final String FORMAT_VERSION = "format-version";
  public static final String TABLE_UUID = "table-uuid";
  public static final String LOCATION = "location";
  public static final String LAST_SEQUENCE_NUMBER = "last-sequence-number";
  public static final String LAST_UPDATED_MS = "last-updated-ms";
  public static final String LAST_COLUMN_ID = "last-column-id";
  public static final String SCHEMA = "schema";
  public static final String SCHEMAS = "schemas";
  public static final String CURRENT_SCHEMA_ID = "current-schema-id";
  public static final String SCHEMA_ID = "schema-id";
  public static final String PARTITION_SPEC = "partition-spec";
  public static final String PARTITION_SPECS = "partition-specs";
  public static final String DEFAULT_SPEC_ID = "default-spec-id";
  public static final String SPEC_ID = "spec-id";
  public static final String LAST_PARTITION_ID = "last-partition-id";
  public static final String PROPERTIES = "properties";
  public static final String CURRENT_SNAPSHOT_ID = "current-snapshot-id";
  public static final String SNAPSHOTS = "snapshots";
  public static final String SNAPSHOT_LOG = "snapshot-log";
  public static final String METADATA_LOG = "metadata-log";
  public static final String SORT_ORDERS = "sort-orders";
  public static final String DEFAULT_SORT_ORDER_ID = "default-sort-order-id";
  public static final String ORDER_ID = "order-id";
  public static final String REFS = "refs";
  public static final String STATISTICS = "statistics";
  public static final String PARTITION_STATISTICS = "partition-statistics";
  public static final String NEXT_ROW_ID = "next-row-id";
  public static final String ENCRYPTION_KEYS = "encryption-keys";

  public static final String SNAPSHOT_ID = "snapshot-id";
  public static final String PARENT_SNAPSHOT_ID = "parent-snapshot-id";
  public static final String SEQUENCE_NUMBER = "sequence-number";
  public static final String TIMESTAMP_MS = "timestamp-ms";
  public static final String MANIFEST_LIST = "manifest-list";
  public static final String MANIFESTS = "manifests";
  public static final String SUMMARY = "summary";
  public static final String OPERATION = "operation";
  public static final String KEY_ID = "key-id";

  public static final String METADATA_FILE = "metadata-file";
  public static final String STATISTICS_PATH = "statistics-path";
  public static final String FILE_SIZE_IN_BYTES = "file-size-in-bytes";
  public static final String REF_TYPE = "type";
}
