package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogConfinement;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.CatalogRegistrars;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.EntriesTogether;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.state.KnownCurrent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the lane's runs ({@link TableRunner}) and the operations on a table ({@link
 * ReplicaMaintenance}, {@link FailoverOperations}, {@link GroupOperations}) of a table share: the
 * stores, rules, catalogs and board, and how a key's source is located, its replica's catalog entry
 * found and its files confined.
 */
public final class TableContext implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableContext.class);

  private final StoreFactory stores;
  private final Clock clock;
  private final ExecutorService fileExecutor;
  private final ReplicationOptions options;
  private final TableRules rules;
  private final TableStatus board;
  private final CatalogClients catalogs;
  private final CatalogTableLocations catalogLocations;
  private final BatchOperations batchOperations;
  private final GroupRefs groups;

  /** The replication group a table belongs to, by the name of its tags. */
  @FunctionalInterface
  public interface GroupRefs {
    GroupRefs NONE = key -> Optional.empty();

    /** The ref of the group whose cuts are tagged on the key's replica, if any. */
    Optional<String> refOf(TableKey key);

    /**
     * When the key's replica state records the replica known current, and with which group: a
     * group's member at its group's interval, any other table when a run commits.
     */
    default KnownCurrent knownCurrentOf(TableKey key) {
      return KnownCurrent.ON_COMMIT;
    }
  }

  /** How many keys' last published replica versions are kept between runs. */
  static final int PUBLISHED_HEADS_KEPT = 16;

  /** Rules whose catalog's tables are unconfined, warned about once. */
  private final Set<String> unconfinedRules = ConcurrentHashMap.newKeySet();

  /**
   * The replica version each of the keys run most recently published last, so its next run reads
   * the replica's listing and hint but not that version again while it is still the head: a table
   * that commits often is replicated without parsing its replica metadata each time. Bounded: a
   * parsed version of a large table is large.
   */
  private final Map<TableKey, AtomicReference<ReplicaHead>> published =
      Collections.synchronizedMap(
          new LinkedHashMap<>(PUBLISHED_HEADS_KEPT, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(
                Map.Entry<TableKey, AtomicReference<ReplicaHead>> eldest) {
              return size() > PUBLISHED_HEADS_KEPT;
            }
          });

  private TableContext(Builder builder) {
    this.stores = builder.stores;
    this.clock = builder.clock;
    this.fileExecutor = builder.fileExecutor;
    this.options = builder.options;
    this.rules = builder.rules;
    this.board = builder.board;
    this.catalogs = builder.catalogs != null ? builder.catalogs : new CatalogClients();
    this.catalogLocations =
        builder.catalogLocations != null ? builder.catalogLocations : new CatalogTableLocations();
    this.batchOperations = builder.batchOperations;
    this.groups = builder.groups;
  }

  /**
   * A context with no catalogs, no S3 Batch Operations and no groups unless the builder is told
   * otherwise.
   *
   * @param fileExecutor copies files; shared by all runs and operations, a separate pool from the
   *     lanes' so a run waiting for its copies never holds the threads they need. Shut down by
   *     {@link #close}.
   * @param rules the rules, for where their tables may keep files and their retention
   * @param board told where each table stands
   */
  public static Builder builder(
      StoreFactory stores,
      Clock clock,
      ExecutorService fileExecutor,
      ReplicationOptions options,
      TableRules rules,
      TableStatus board) {
    return new Builder(stores, clock, fileExecutor, options, rules, board);
  }

  /** The one way to a {@link TableContext}: the parts every context needs, then the optional. */
  public static final class Builder {
    private final StoreFactory stores;
    private final Clock clock;
    private final ExecutorService fileExecutor;
    private final ReplicationOptions options;
    private final TableRules rules;
    private final TableStatus board;
    private CatalogClients catalogs;
    private CatalogTableLocations catalogLocations;
    private BatchOperations batchOperations = BatchOperations.OFF;
    private GroupRefs groups = GroupRefs.NONE;

    private Builder(
        StoreFactory stores,
        Clock clock,
        ExecutorService fileExecutor,
        ReplicationOptions options,
        TableRules rules,
        TableStatus board) {
      this.stores = stores;
      this.clock = clock;
      this.fileExecutor = fileExecutor;
      this.options = options;
      this.rules = rules;
      this.board = board;
    }

    /** The clients of the catalogs rules and targets name; none opened by default. */
    public Builder catalogs(CatalogClients catalogs) {
      this.catalogs = catalogs;
      return this;
    }

    /** Told where each catalog table lives, for the events under it; a fresh one by default. */
    public Builder catalogLocations(CatalogTableLocations catalogLocations) {
      this.catalogLocations = catalogLocations;
      return this;
    }

    /**
     * Hands the byte-for-byte copies of each backfill to S3 Batch Operations first where it finds
     * it worth a job; the board hears where the job stands. {@link BatchOperations#OFF} by default.
     */
    public Builder batchOperations(BatchOperations batchOperations) {
      this.batchOperations = batchOperations;
      return this;
    }

    /**
     * The groups whose cuts are tagged: a member's catalog entry moves with the group's others
     * where its catalog can ({@link EntriesTogether}). {@link GroupRefs#NONE} by default.
     */
    public Builder groups(GroupRefs groups) {
      this.groups = groups;
      return this;
    }

    public TableContext build() {
      return new TableContext(this);
    }
  }

  public StoreFactory stores() {
    return stores;
  }

  public Clock clock() {
    return clock;
  }

  /** The pool the file copies and rewrites of all runs and operations share. */
  public ExecutorService fileExecutor() {
    return fileExecutor;
  }

  /** The options of the service, before a table's own ({@link #optionsOf}). */
  public ReplicationOptions options() {
    return options;
  }

  public TableRules rules() {
    return rules;
  }

  public TableStatus board() {
    return board;
  }

  public CatalogClients catalogs() {
    return catalogs;
  }

  public CatalogTableLocations catalogLocations() {
    return catalogLocations;
  }

  public BatchOperations batchOperations() {
    return batchOperations;
  }

  public GroupRefs groups() {
    return groups;
  }

  /**
   * Where a key's source table is and which catalogs its run goes through. A catalog table's
   * location and head are the catalog's, read once per run: the head the run replicates up to is
   * the one it located the table by.
   */
  record Source(String location, TableCatalogs catalogs) {}

  /** The replica's entry in its target's catalog, for a target that registers its replicas. */
  record ReplicaEntry(CatalogSpec spec, TableIdentifier identifier, ReplicaRegistrar registrar) {}

  Optional<ReplicaEntry> replicaEntry(TableKey key) {
    return rules
        .rule(key.rule())
        .target(key.target())
        .flatMap(
            target ->
                target
                    .catalog()
                    .map(
                        spec -> {
                          TableIdentifier identifier =
                              TableIdentifier.parse(
                                  TableRules.replicaIdentifier(target, key.levels()));
                          ReplicaRegistrar registrar =
                              CatalogRegistrars.forCatalog(
                                  spec,
                                  catalogs.registering(spec),
                                  identifier,
                                  stores.targetStore(key.targetLocation()),
                                  catalogs);
                          return new ReplicaEntry(
                              spec,
                              identifier,
                              groups
                                  .refOf(key)
                                  .map(ref -> EntriesTogether.held(registrar, ref))
                                  .orElse(registrar));
                        }));
  }

  Source source(TableKey key) {
    TableRule rule = rules.rule(key.rule());
    Optional<ReplicaRegistrar> registrar = replicaEntry(key).map(ReplicaEntry::registrar);
    if (rule.catalog().isEmpty()) {
      return new Source(key.sourceLocation(), new TableCatalogs(Optional.empty(), registrar));
    }
    CatalogSpec spec = rule.catalog().get().spec();
    org.apache.iceberg.catalog.Catalog catalog = catalogs.get(spec);
    org.apache.iceberg.TableMetadata current =
        new CatalogHeadResolver(
                catalog, spec, TableIdentifier.of(key.levels().toArray(String[]::new)))
            .current();
    confine(key, rule, spec, catalog, current.location());
    catalogLocations.record(current.location(), rules.keys(rule, key.table()));
    SourceHeadResolver head =
        location -> SourceHeadResolver.Head.given(current.metadataFileLocation());
    return new Source(current.location(), new TableCatalogs(Optional.of(head), registrar));
  }

  /**
   * The location a catalog reports must lie under the rule's allowed source prefixes, or its
   * catalog's warehouse ({@link CatalogConfinement}); a catalog whose warehouse is unknown leaves
   * its tables unconfined, which the service warns about once per rule.
   */
  private void confine(
      TableKey key,
      TableRule rule,
      CatalogSpec spec,
      org.apache.iceberg.catalog.Catalog catalog,
      String location) {
    List<String> roots = CatalogConfinement.roots(rule.allowedSourcePrefixes(), spec, catalog);
    if (roots.isEmpty() && unconfinedRules.add(rule.name())) {
      LOG.warn(
          "{}: {} says no warehouse, so its tables may name files anywhere; set"
              + " allowed-source-prefixes on the rule to confine them",
          rule.name(),
          spec.describe());
    }
    try {
      CatalogConfinement.check(
          key.table(),
          spec,
          location,
          roots,
          rule.allowedSourcePrefixes().isEmpty()
              ? "the catalog's warehouse"
              : "the rule's allowed-source-prefixes");
    } catch (BadInputException e) {
      throw new TableReplicationException(key.sourceLocation(), e);
    }
  }

  /**
   * A table may keep files only under its own folder, its rule's allowed prefixes and the prefixes
   * its target maps: its metadata alone must not make the service copy another table's files.
   */
  ReplicationOptions optionsOf(TableKey key, String sourceLocation) {
    TableRule rule = rules.rule(key.rule());
    List<PathMapping.Prefix> maps =
        rule.target(key.target()).map(RuleTarget::map).orElse(List.of());
    List<String> allowed = new ArrayList<>();
    allowed.add(sourceLocation);
    allowed.addAll(rule.allowedSourcePrefixes());
    return options.forTable(maps, allowed);
  }

  /** The last replica version this key's runs published, handed from each run to the next. */
  AtomicReference<ReplicaHead> publishedLast(TableKey key) {
    return published.computeIfAbsent(key, k -> new AtomicReference<>());
  }

  /**
   * Interrupts the file copies and rewrites in flight and takes no more: a stopping service's
   * abandoned runs then fail at once instead of waiting for their files (a copy blocked in a socket
   * read that ignores interrupts still finishes its file first).
   */
  public void abandonFileSteps() {
    fileExecutor.shutdownNow();
  }

  /** Stops the file copies; call after the coordinator has let running work finish. */
  @Override
  public void close() {
    abandonFileSteps();
  }
}
