package io.icerepl.app.cli.options;

import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.CatalogRegistrars;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.ObjectStore;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.catalog.Catalog;
import picocli.CommandLine.Option;

/**
 * Where the command's locations live: local paths, {@code s3://} with a region and optional
 * endpoint per side, {@code abfss://} / {@code wasbs://} on Azure, or {@code gs://} on GCS, each
 * with an optional endpoint per side. Credentials come from each cloud's own chain (S3:
 * environment, profile, role; Azure: {@code AZURE_STORAGE_*} variables or its default credential;
 * GCS: application-default credentials), never from the command line.
 */
public final class StoreOptions implements AutoCloseable {
  @Option(
      names = "--endpoint",
      paramLabel = "<url>",
      description =
          "Endpoint of both sides' store (S3: LocalStack, MinIO, ...; Azure: a Blob endpoint such as"
              + " Azurite's http://127.0.0.1:10000/devstoreaccount1; GCS: an emulator); default: the"
              + " cloud's own.")
  URI endpoint;

  @Option(
      names = "--source-endpoint",
      paramLabel = "<url>",
      description = "Endpoint of the source side's store (S3, Azure Blob or GCS).")
  URI sourceEndpoint;

  @Option(
      names = "--target-endpoint",
      paramLabel = "<url>",
      description = "Endpoint of the target side's store (S3, Azure Blob or GCS).")
  URI targetEndpoint;

  @Option(
      names = "--region",
      paramLabel = "<region>",
      description =
          "S3 region of both sides, also of the catalogs' AWS clients unless they set client.region.")
  String region = "us-east-1";

  @Option(
      names = "--source-region",
      paramLabel = "<region>",
      description = "S3 region of the source side.")
  String sourceRegion;

  @Option(
      names = "--target-region",
      paramLabel = "<region>",
      description = "S3 region of the target side.")
  String targetRegion;

  @Option(
      names = "--path-style",
      description = "Path-style S3 addressing (most S3-compatible servers need it).")
  boolean pathStyle;

  @Option(
      names = "--lock-prefix",
      paramLabel = "<prefix>",
      description =
          "Key prefix of the table leases in the target bucket; the service's replicator.s3.lock-prefix"
              + " default, so that the command and the service never run on one table at once.")
  String lockPrefix = ReplicaLayout.DEFAULT_LOCK_PREFIX;

  private SchemeStores stores;

  public ObjectStore source(String location) {
    return stores().sourceStore(location);
  }

  public ObjectStore target(String location) {
    return stores().targetStore(location);
  }

  private SchemeStores stores() {
    if (stores == null) {
      S3StoreSettings settings =
          SchemeStores.leaseSettings(
              lockPrefix, Duration.parse(S3StoreSettings.DEFAULT_LOCK_TTL), Clock.systemUTC());
      stores =
          SchemeStores.withS3(
              new SchemeStores.S3Access(
                  side(sourceEndpoint, sourceRegion),
                  side(targetEndpoint, targetRegion),
                  settings,
                  S3Resilience.defaults(),
                  List.of()));
    }
    return stores;
  }

  /**
   * The source side's S3 settings as Iceberg properties, for a source catalog's AWS clients (the
   * S3FileIO its client reads metadata with, Glue's client) where the catalog's properties set
   * none: a catalog over the same S3 needs them only once.
   */
  private Map<String, String> sourceCatalogDefaults() {
    return catalogDefaults(sourceEndpoint, sourceRegion);
  }

  /** As {@link #sourceCatalogDefaults}, for a target catalog. */
  private Map<String, String> targetCatalogDefaults() {
    return catalogDefaults(targetEndpoint, targetRegion);
  }

  private Map<String, String> catalogDefaults(URI sideEndpoint, String sideRegion) {
    S3Endpoint side = side(sideEndpoint, sideRegion);
    Map<String, String> defaults = new LinkedHashMap<>();
    side.endpointOverride().ifPresent(e -> defaults.put(S3FileIOProperties.ENDPOINT, e.toString()));
    if (side.pathStyle()) {
      defaults.put(S3FileIOProperties.PATH_STYLE_ACCESS, "true");
    }
    defaults.put(AwsClientProperties.CLIENT_REGION, side.region());
    return defaults;
  }

  /**
   * A source catalog, its AWS clients set up as the source side where its properties say nothing.
   */
  public CatalogSpec sourceCatalog(CatalogTable table) {
    return table.catalog().withDefaults(sourceCatalogDefaults());
  }

  /** A source catalog's table, whose head is the metadata file the catalog names. */
  public CatalogHeadResolver sourceHead(CatalogClients catalogs, CatalogTable table) {
    CatalogSpec catalog = sourceCatalog(table);
    return new CatalogHeadResolver(catalogs.get(catalog), catalog, table.identifier());
  }

  /**
   * A replica's entry in a target catalog, moved to each version published in {@code replica}; the
   * catalog's AWS clients set up as the target side where its properties say nothing.
   *
   * @param open how the catalog is opened: {@link CatalogClients#get} or {@link
   *     CatalogClients#registering}
   */
  public ReplicaRegistrar catalogEntry(
      CatalogClients catalogs,
      Function<CatalogSpec, Catalog> open,
      CatalogTable table,
      ObjectStore replica) {
    CatalogSpec catalog = table.catalog().withDefaults(targetCatalogDefaults());
    return CatalogRegistrars.forCatalog(
        catalog, open.apply(catalog), table.identifier(), replica, catalogs);
  }

  /** The target side's S3 region. */
  public String targetRegion() {
    return side(targetEndpoint, targetRegion).region();
  }

  private S3Endpoint side(URI sideEndpoint, String sideRegion) {
    return new S3Endpoint(
        Optional.ofNullable(sideEndpoint != null ? sideEndpoint : endpoint),
        sideRegion != null ? sideRegion : region,
        Optional.empty(),
        Optional.empty(),
        pathStyle);
  }

  @Override
  public void close() {
    if (stores != null) {
      stores.close();
    }
  }
}
