package io.icerepl.app.engine.worker;

import io.icerepl.app.logging.Redaction;
import io.icerepl.copier.azure.AzureAccess;
import io.icerepl.copier.azure.AzureObjectStore;
import io.icerepl.copier.gcs.GcsAccess;
import io.icerepl.copier.gcs.GcsObjectStore;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * The stores of both sides, chosen by a location's {@link StoreFamily} ({@code s3://} and its
 * aliases to that side's S3 store, {@code abfss://} and Azure's other spellings to its Azure store,
 * {@code gs://} to its GCS store; {@code file:} and plain paths, absolute or relative, to the local
 * file system; nothing else), and the one place those stores are built, for the command line and
 * the service alike. A store is opened on its first use, so a local run builds no client; {@link
 * #close} closes what was opened.
 *
 * <p>Azure and GCS take their credentials where their own tools look (Azure's {@code
 * AZURE_STORAGE_*} variables or its default credential chain; GCS's application-default
 * credentials), and a side's endpoint, when one is set, is the endpoint of whichever store that
 * side's location is on (an emulator's, a private endpoint's). Every store takes its table leases
 * with the same settings, so the command line and the service never run on one table at once,
 * whichever store it is on.
 */
public final class SchemeStores implements StoreFactory, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SchemeStores.class);

  /** A side of a replication: where tables are read from, or where replicas are written. */
  public enum Side {
    SOURCE,
    TARGET;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Opens one side's store of one family, on the first location of the family that side meets. */
  @FunctionalInterface
  public interface Opener {
    ObjectStore open(Side side);
  }

  /**
   * How both sides reach S3.
   *
   * @param interceptors SDK interceptors on both sides (request tracing; tests inject faults with
   *     one)
   */
  public record S3Access(
      S3Endpoint source,
      S3Endpoint target,
      S3StoreSettings settings,
      S3Resilience resilience,
      List<ExecutionInterceptor> interceptors) {
    public S3Access {
      interceptors = List.copyOf(interceptors);
    }

    S3Endpoint side(Side side) {
      return side == Side.SOURCE ? source : target;
    }
  }

  private final LocalObjectStore local = new LocalObjectStore();
  private final Map<StoreFamily, Opener> openers;
  private final Map<StoreFamily, Map<Side, ObjectStore>> opened = new EnumMap<>(StoreFamily.class);

  private SchemeStores(Map<StoreFamily, Opener> openers) {
    this.openers = new EnumMap<>(StoreFamily.class);
    this.openers.putAll(openers);
  }

  /** Local files only: a location on any object store is refused. */
  public static SchemeStores local() {
    return new SchemeStores(Map.of());
  }

  /**
   * Where one store family's two sides are reached when not at the cloud's own endpoints (an
   * emulator, a private endpoint).
   */
  public record Endpoints(Optional<URI> source, Optional<URI> target) {
    public static final Endpoints CLOUDS_OWN = new Endpoints(Optional.empty(), Optional.empty());

    Optional<URI> side(Side side) {
      return side == Side.SOURCE ? source : target;
    }
  }

  /**
   * S3 as {@code s3} says, and Azure and GCS with the credentials their tools find, each side at
   * the endpoint {@code s3} sets for it (the command line's {@code --source-endpoint} and {@code
   * --target-endpoint} name the side's endpoint, whichever store it is on), leases as {@code
   * s3.settings()} names them.
   */
  public static SchemeStores withS3(S3Access s3) {
    Endpoints sides = new Endpoints(s3.source().endpointOverride(), s3.target().endpointOverride());
    return of(s3, sides, sides);
  }

  /** As {@link #withS3(S3Access)}, Azure and GCS at endpoints of their own. */
  public static SchemeStores of(S3Access s3, Endpoints azure, Endpoints gcs) {
    LeaseLocks.Settings leases = leases(s3.settings());
    Map<StoreFamily, Opener> openers = new HashMap<>();
    openers.put(StoreFamily.S3, side -> openS3(s3, s3.side(side)));
    openers.put(
        StoreFamily.AZURE, side -> new AzureObjectStore(azureAccess(azure.side(side)), leases));
    openers.put(StoreFamily.GCS, side -> GcsObjectStore.open(gcsAccess(gcs.side(side)), leases));
    return new SchemeStores(openers);
  }

  /**
   * These stores with the family's store opened by {@code opener} instead (a client made elsewhere,
   * as a test's in-process GCS).
   */
  public SchemeStores with(StoreFamily family, Opener opener) {
    Map<StoreFamily, Opener> more = new HashMap<>(openers);
    more.put(family, opener);
    return new SchemeStores(more);
  }

  /**
   * Store settings whose leases live under {@code lockPrefix} and name this process as their owner,
   * so an operator can tell who holds a table.
   */
  public static S3StoreSettings leaseSettings(String lockPrefix, Duration lockTtl, Clock clock) {
    String owner = ManagementFactory.getRuntimeMXBean().getName();
    S3StoreSettings settings = S3StoreSettings.defaults(owner).withLockPrefix(lockPrefix);
    return settings.withLock(settings.lockPrefix(), owner, lockTtl, clock);
  }

  /** The leases of every store, named and timed as S3's are. */
  public static LeaseLocks.Settings leases(S3StoreSettings settings) {
    return new LeaseLocks.Settings(
        settings.lockPrefix(), settings.lockOwner(), settings.lockTtl(), settings.clock());
  }

  /**
   * Azure's access as its tools find it in the environment (and, the same names, in system
   * properties, which win), at {@code endpoint} when one is set.
   */
  static AzureAccess azureAccess(Optional<URI> endpoint) {
    Map<String, String> names = new HashMap<>(System.getenv());
    System.getProperties().stringPropertyNames().stream()
        .filter(name -> name.startsWith("AZURE_"))
        .forEach(name -> names.put(name, System.getProperty(name)));
    AzureAccess access = AzureAccess.fromEnvironment(names);
    registerSecrets(access.credential());
    return endpoint.map(e -> access.withEndpoint(e.toString())).orElse(access);
  }

  /** Masks Azure's secrets in every log line and message from now on. */
  private static void registerSecrets(AzureAccess.Credential credential) {
    if (credential instanceof AzureAccess.ConnectionString connection) {
      Redaction.secret(connection.value());
      Redaction.secretsIn(connection.value());
    } else if (credential instanceof AzureAccess.SasToken sas) {
      Redaction.secret(sas.value());
    } else if (credential instanceof AzureAccess.SharedKey key) {
      Redaction.secret(key.accountKey());
    }
  }

  /** GCS with application-default credentials, or an emulator at {@code endpoint}. */
  static GcsAccess gcsAccess(Optional<URI> endpoint) {
    return endpoint
        .map(e -> GcsAccess.emulator(e.toString()))
        .orElseGet(GcsAccess::applicationDefault);
  }

  @Override
  public ObjectStore sourceStore(String location) {
    return store(Side.SOURCE, location);
  }

  @Override
  public ObjectStore targetStore(String location) {
    return store(Side.TARGET, location);
  }

  private synchronized ObjectStore store(Side side, String location) {
    Optional<StoreFamily> family = StoreFamily.of(location);
    if (family.isPresent()) {
      Opener opener = openers.get(family.get());
      if (opener == null) {
        throw new IllegalArgumentException(
            "Cannot open "
                + side.label()
                + " store for "
                + location
                + ": no "
                + family.get()
                + " access is configured");
      }
      return opened
          .computeIfAbsent(family.get(), f -> new EnumMap<>(Side.class))
          .computeIfAbsent(side, opener::open);
    }
    int colon = location.indexOf(':');
    // a plain path, absolute or relative to the working folder, is a local table as a file: URI is
    if (location.startsWith("file:") || colon < 0) {
      return local;
    }
    String scheme = location.substring(0, colon + 1);
    throw new IllegalArgumentException(
        "Cannot open "
            + side.label()
            + " store for "
            + location
            + ": scheme "
            + scheme
            + " is not supported (only "
            + StoreFamily.supported()
            + ")");
  }

  private static S3ObjectStore openS3(S3Access access, S3Endpoint endpoint) {
    return S3ObjectStore.create(
        endpoint, access.settings(), access.resilience(), access.interceptors());
  }

  @Override
  public synchronized void close() {
    for (Map<Side, ObjectStore> sides : opened.values()) {
      for (ObjectStore store : sides.values()) {
        if (store instanceof AutoCloseable closeable) {
          try {
            closeable.close();
          } catch (Exception e) {
            LOG.warn("Cannot close {}: {}", store, e.toString());
          }
        }
      }
    }
    opened.clear();
  }
}
