package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationResult;
import io.icerepl.app.engine.TableHeads;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogConfinement;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.CatalogRegistrars;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.FailbackSummary;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TableFailback;
import io.icerepl.app.engine.failover.TablePromoter;
import io.icerepl.app.engine.failover.TablePromotionException;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.head.MetadataListing;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.retention.DeletionProgress;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.verify.VerifyResult;
import io.icerepl.app.engine.verify.VerifySource;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.path.TableLocation;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of one lane run, bound to the engine: replicate a key and record where source and
 * replica stand, or expire a replica's snapshots by its rule's retention settings.
 */
public final class TableRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableRunner.class);

  private final StoreFactory stores;
  private final Clock clock;
  private final ExecutorService fileExecutor;
  private final ReplicationOptions options;
  private final TableRules rules;
  private final TableStatus board;
  private final CatalogClients catalogs;
  private final CatalogTableLocations catalogLocations;
  private final BatchOperations batchOperations;

  /**
   * For each key whose last run (or restore) found its replica holding the source head with nothing
   * settling: the source metadata folder's listing that head was resolved from, and the replica's
   * metadata folder's listing right after.
   */
  private final Map<TableKey, InSync> inSyncListings = new ConcurrentHashMap<>();

  private record InSync(MetadataListing source, MetadataListing replica) {}

  /** How many keys' last published replica versions are kept between runs. */
  static final int PUBLISHED_HEADS_KEPT = 16;

  /**
   * The replica version each of the keys run most recently published last, so its next run reads
   * the replica's listing and hint but not that version again while it is still the head: a table
   * that commits often is replicated without parsing its replica metadata each time. Bounded: a
   * parsed version of a large table is large.
   */
  /** Rules whose catalog's tables are unconfined, warned about once. */
  private final Set<String> unconfinedRules = ConcurrentHashMap.newKeySet();

  private final Map<TableKey, AtomicReference<ReplicaHead>> published =
      Collections.synchronizedMap(
          new LinkedHashMap<>(PUBLISHED_HEADS_KEPT, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(
                Map.Entry<TableKey, AtomicReference<ReplicaHead>> eldest) {
              return size() > PUBLISHED_HEADS_KEPT;
            }
          });

  /**
   * @param fileExecutor copies files; shared by all runs, a separate pool from the lanes' so a run
   *     waiting for its copies never holds the threads they need. Shut down by {@link #close}.
   * @param rules the rules, for where their tables may keep files and their retention
   * @param board told where each table stands
   * @param catalogs the clients of the catalogs rules and targets name
   * @param catalogLocations told where each catalog table lives, for the events under it
   */
  public TableRunner(
      StoreFactory stores,
      Clock clock,
      ExecutorService fileExecutor,
      ReplicationOptions options,
      TableRules rules,
      TableStatus board,
      CatalogClients catalogs,
      CatalogTableLocations catalogLocations) {
    this(
        stores,
        clock,
        fileExecutor,
        options,
        rules,
        board,
        catalogs,
        catalogLocations,
        BatchOperations.OFF);
  }

  /**
   * As above, handing the byte-for-byte copies of each backfill to S3 Batch Operations first where
   * {@code batchOperations} finds it worth a job; the board hears where the job stands.
   */
  public TableRunner(
      StoreFactory stores,
      Clock clock,
      ExecutorService fileExecutor,
      ReplicationOptions options,
      TableRules rules,
      TableStatus board,
      CatalogClients catalogs,
      CatalogTableLocations catalogLocations,
      BatchOperations batchOperations) {
    this.stores = stores;
    this.clock = clock;
    this.fileExecutor = fileExecutor;
    this.options = options;
    this.rules = rules;
    this.board = board;
    this.catalogs = catalogs;
    this.catalogLocations = catalogLocations;
    this.batchOperations = batchOperations;
  }

  /**
   * Where a key's source table is and which catalogs its run goes through. A catalog table's
   * location and head are the catalog's, read once per run: the head the run replicates up to is
   * the one it located the table by.
   */
  private record Source(String location, TableCatalogs catalogs) {}

  /** The replica's entry in its target's catalog, for a target that registers its replicas. */
  private record ReplicaEntry(
      CatalogSpec spec, TableIdentifier identifier, ReplicaRegistrar registrar) {}

  private Optional<ReplicaEntry> replicaEntry(TableKey key) {
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
                          return new ReplicaEntry(
                              spec,
                              identifier,
                              CatalogRegistrars.forCatalog(
                                  spec,
                                  catalogs.get(spec),
                                  identifier,
                                  stores.targetStore(key.targetLocation()),
                                  catalogs));
                        }));
  }

  private Source source(TableKey key) {
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
   * @return when to run again, if any: for a source metadata file still too young to trust, or for
   *     a version an event announced that the table's catalog does not name yet
   */
  public Optional<Duration> replicate(TableKey key) {
    board.seen(key);
    AtomicReference<ReplicaHead> publishedLast =
        published.computeIfAbsent(key, k -> new AtomicReference<>());
    // the source is located (for a catalog table, its catalog asked) while the replica is read
    CompletableFuture<Source> located =
        CompletableFuture.supplyAsync(() -> source(key), fileExecutor);
    Optional<ReplicaFiles.Replica> replicaRead = readReplica(key, publishedLast);
    Source source;
    try {
      source = located.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
    TableReplicator replicator =
        new TableReplicator(
            stores.sourceStore(source.location()),
            stores.targetStore(key.targetLocation()),
            clock,
            fileExecutor,
            optionsOf(key, source.location()),
            progress -> board.progress(key, progress),
            source.catalogs(),
            batchOperations.preCopy((table, job) -> board.batchJob(key, job)),
            publishedLast);
    ReplicationResult result;
    try {
      result = replicator.replicateIfChanged(source.location(), key.targetLocation(), replicaRead);
    } catch (RuntimeException e) {
      inSyncListings.remove(key);
      // a failed run may still be behind by a known amount (a held lease, a bad file): the lag
      // shows it
      try {
        board.observed(
            key,
            observation(
                source.location(), replicator.read(source.location(), key.targetLocation())));
      } catch (RuntimeException unreadable) {
        e.addSuppressed(unreadable);
      }
      throw e;
    }
    board.succeeded(key, result.summary(), observation(source.location(), result.heads()));
    rememberListing(key, result.heads());
    Optional<Duration> settles = result.summary().settlesIn();
    Optional<Duration> recheck = catalogLocations.recheckIn(key, result.heads().source().file());
    if (settles.isPresent() && recheck.isPresent()) {
      return settles.get().compareTo(recheck.get()) < 0 ? settles : recheck;
    }
    return settles.or(() -> recheck);
  }

  /**
   * The replica's side of a run's check, read while its source is located; empty when it cannot be
   * read, for the check to read it again and report what is wrong, naming the source.
   */
  private Optional<ReplicaFiles.Replica> readReplica(
      TableKey key, AtomicReference<ReplicaHead> publishedLast) {
    try {
      return Optional.of(
          new ReplicaFiles(stores.targetStore(key.targetLocation()), options.maxMetadataBytes())
              .read(
                  key.sourceLocation(),
                  key.targetLocation(),
                  Optional.ofNullable(publishedLast.get()),
                  fileExecutor));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the key's last run (or restore) found its replica holding the head its source resolved
   * from a metadata folder listed as {@code listing}, with nothing settling, and the replica's
   * metadata folder still lists as it did then: a source folder listed alike has the same head, and
   * a replica nobody wrote to since needs no run. A commit made into the replica behind the
   * replicator's back changes its listing, so the run that reports it as diverged still comes. One
   * listing of the replica's folder; any error answers "changed", and the run says what it is.
   */
  public boolean unchangedSince(TableKey key, MetadataListing listing) {
    InSync last = inSyncListings.get(key);
    if (last == null || !listing.equals(last.source())) {
      return false;
    }
    return replicaListing(key).filter(last.replica()::equals).isPresent();
  }

  private void rememberListing(TableKey key, TableHeads heads) {
    Optional<MetadataListing> listing = heads.source().listing();
    Optional<MetadataListing> replica =
        heads.inSync() && listing.isPresent() ? replicaListing(key) : Optional.empty();
    if (replica.isPresent()) {
      inSyncListings.put(key, new InSync(listing.get(), replica.get()));
    } else {
      inSyncListings.remove(key);
    }
  }

  private Optional<MetadataListing> replicaListing(TableKey key) {
    try {
      return Optional.of(
          MetadataListing.of(
              stores
                  .targetStore(key.targetLocation())
                  .listEntries(ReplicaLayout.metadataFolder(key.targetLocation()))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * A table may keep files only under its own folder, its rule's allowed prefixes and the prefixes
   * its target maps: its metadata alone must not make the service copy another table's files.
   */
  private ReplicationOptions optionsOf(TableKey key, String sourceLocation) {
    TableRule rule = rules.rule(key.rule());
    List<PathMapping.Prefix> maps =
        rule.target(key.target()).map(RuleTarget::map).orElse(List.of());
    List<String> allowed = new ArrayList<>();
    allowed.add(sourceLocation);
    allowed.addAll(rule.allowedSourcePrefixes());
    return options.forTable(maps, allowed);
  }

  /**
   * Where a replica not seen since the service started stands, read from the replica's own metadata
   * and the source head, so its status and lag are right before its first run.
   */
  public void restore(TableKey key) {
    if (board.known(key)) {
      return;
    }
    try {
      Source source = source(key);
      TableReplicator replicator =
          new TableReplicator(
              stores.sourceStore(source.location()),
              stores.targetStore(key.targetLocation()),
              clock,
              fileExecutor,
              options,
              CopyProgress.Listener.NONE,
              source.catalogs());
      TableHeads heads = replicator.read(source.location(), key.targetLocation());
      board.restored(key, observation(source.location(), heads));
      rememberListing(key, heads);
    } catch (RuntimeException e) {
      // the table's run reports the same error with its state
      LOG.info(
          "{}: status of replica {} not restored: {}",
          key.table(),
          key.targetLocation(),
          e.getMessage());
    }
  }

  public RetentionResult expire(TableKey key) {
    return RetentionRunner.expire(
        stores.targetStore(key.targetLocation()),
        clock,
        key.targetLocation(),
        rules.rule(key.rule()).retention(),
        options.maxMetadataBytes(),
        DeletionProgress.Listener.NONE);
  }

  /**
   * Verifies the key's replica against its rule's source, whose head is resolved as {@link
   * #replicate} resolves it (the catalog's pointer, else the folder's settled head), reading only;
   * tells the board the outcome, or that it could not complete.
   */
  public VerifyReport verify(TableKey key) {
    try {
      Source source = source(key);
      ObjectStore sourceStore = stores.sourceStore(source.location());
      String head =
          source
              .catalogs()
              .sourceHead()
              .orElseGet(() -> new FileSystemHeadResolver(sourceStore, clock, options.settleTime()))
              .head(source.location())
              .file();
      List<String> first = new ArrayList<>();
      VerifyResult result =
          new TableVerifier(
                  stores.targetStore(key.targetLocation()),
                  fileExecutor,
                  options.parallelism(),
                  options.maxMetadataBytes())
              .verify(
                  key.targetLocation(),
                  Optional.of(new VerifySource(sourceStore, source.location(), head)),
                  line -> {
                    if (first.size() < VerifyReport.PROBLEMS_KEPT) {
                      first.add(line);
                    }
                  });
      VerifyReport report =
          new VerifyReport(clock.instant(), result.checked(), result.problems(), first);
      board.verified(key, report);
      return report;
    } catch (RuntimeException e) {
      board.verifyFailed(key, e);
      throw e;
    }
  }

  /**
   * Promotes the key's replica (failover) as the {@code promote} command does; safe mode first
   * replicates what the rule's source still serves (resolved as {@link #replicate} resolves it) and
   * verifies the replica against it. Tells the board the replica is a primary now.
   *
   * @param problems receives each problem the verification of safe mode finds
   * @throws TablePromotionException when the promotion was refused or failed; the replica is left
   *     as it was
   */
  public PromotionResult promote(
      TableKey key, PromotionMode mode, boolean force, Consumer<String> problems) {
    return promote(key, mode, force, problems, OptionalLong.empty());
  }

  /**
   * As above, refused when the replica is no longer at {@code decidedOn}, the replica version the
   * caller saw when it decided.
   */
  public PromotionResult promote(
      TableKey key,
      PromotionMode mode,
      boolean force,
      Consumer<String> problems,
      OptionalLong decidedOn) {
    String table = key.targetLocation();
    Optional<ReplicaEntry> entry = replicaEntry(key);
    ObjectStore replicaStore = stores.targetStore(key.targetLocation());
    TablePromoter promoter =
        new TablePromoter(
            replicaStore, clock, options.maxMetadataBytes(), entry.map(ReplicaEntry::registrar));
    PromotionResult result;
    if (mode == PromotionMode.SAFE) {
      Source source = source(key);
      ObjectStore sourceStore = stores.sourceStore(source.location());
      TableReplicator replicator =
          new TableReplicator(
              sourceStore,
              replicaStore,
              clock,
              fileExecutor,
              optionsOf(key, source.location()),
              progress -> board.progress(key, progress),
              source.catalogs());
      TableVerifier verifier =
          new TableVerifier(
              replicaStore, fileExecutor, options.parallelism(), options.maxMetadataBytes());
      result =
          promoter.promoteSafely(
              table,
              source.location(),
              key.targetLocation(),
              replicator,
              sourceStore,
              verifier,
              force,
              problems,
              decidedOn);
    } else {
      result = promoter.promote(table, key.targetLocation(), mode, decidedOn);
    }
    board.promoted(key, result);
    return result;
  }

  /**
   * Fails the key's promoted replica back into {@code originalLocation} as the {@code failback}
   * command does: the original becomes a replica of the promoted table, the old source's orphan
   * commits kept under tags named {@code tagPrefix}. Files the rule's target maps outside the
   * replica's folder go back to where the target's map took them from. Tells the board.
   *
   * @throws TableReplicationException when the fail-back was refused or failed; the original is
   *     left as it was
   */
  public FailbackSummary failback(TableKey key, String originalLocation, String tagPrefix) {
    return failback(key, originalLocation, tagPrefix, OptionalLong.empty());
  }

  /** As above, refused when the promoted table is no longer at {@code decidedOnEpoch}. */
  public FailbackSummary failback(
      TableKey key, String originalLocation, String tagPrefix, OptionalLong decidedOnEpoch) {
    String primary = key.targetLocation();
    TableRule rule = rules.rule(key.rule());
    Optional<CatalogSpec> originalCatalog = rule.catalog().map(RuleCatalog::spec);
    if (originalCatalog.isPresent() && "rest".equals(originalCatalog.get().type())) {
      throw refusedFailback(
          primary,
          originalLocation,
          "its source is a table of "
              + rule.catalog().get().label()
              + ", a REST catalog whose entry a fail-back cannot move (the failback command with"
              + " --old-source-catalog moves a JDBC or Glue entry)");
    }
    if (TableLocation.of(originalLocation).overlaps(TableLocation.of(primary))) {
      throw refusedFailback(primary, originalLocation, "it overlaps the promoted table");
    }
    ObjectStore primaryStore = stores.targetStore(primary);
    if (new TablePromoter(primaryStore, clock, options.maxMetadataBytes())
        .promotion(primary, primary)
        .isEmpty()) {
      throw refusedFailback(
          primary, originalLocation, primary + " is a replica, not promoted: nothing to fail back");
    }
    List<PathMapping.Prefix> maps =
        rule.target(key.target()).map(RuleTarget::map).orElse(List.of());
    List<String> allowed = new ArrayList<>();
    allowed.add(primary);
    maps.forEach(map -> allowed.add(map.target()));
    FailbackSummary summary =
        new TableFailback(
                primaryStore,
                stores.sourceStore(originalLocation),
                clock,
                fileExecutor,
                options.forTable(
                    maps.stream()
                        .map(map -> new PathMapping.Prefix(map.target(), map.source()))
                        .toList(),
                    allowed),
                tagPrefix,
                failbackCatalogs(key, originalLocation, originalCatalog))
            .failback(primary, originalLocation, decidedOnEpoch);
    board.failedBack(key, FailbackReport.of(clock.instant(), summary));
    return summary;
  }

  /**
   * Writers commit to a promoted replica registered in a catalog through its entry, leaving the
   * folder's version hint behind: its head is the entry's file. The original's entry in the rule's
   * source catalog follows each version fail-back publishes, read-only.
   */
  private TableCatalogs failbackCatalogs(
      TableKey key, String originalLocation, Optional<CatalogSpec> originalCatalog) {
    Optional<SourceHeadResolver> primaryHead =
        replicaEntry(key)
            .map(
                entry ->
                    new CatalogHeadResolver(
                        catalogs.get(entry.spec()), entry.spec(), entry.identifier()));
    Optional<ReplicaRegistrar> originalEntry =
        originalCatalog.map(
            spec ->
                CatalogRegistrars.forCatalog(
                    spec,
                    catalogs.get(spec),
                    TableIdentifier.of(key.levels().toArray(String[]::new)),
                    stores.sourceStore(originalLocation),
                    catalogs));
    return new TableCatalogs(primaryHead, originalEntry);
  }

  private static TableReplicationException refusedFailback(
      String primary, String originalLocation, String reason) {
    return new TableReplicationException(
        primary, TableFailback.refused(primary, originalLocation, reason));
  }

  /** Stops the file copies; call after the coordinator has let running work finish. */
  @Override
  public void close() {
    fileExecutor.shutdownNow();
  }

  private static Observation observation(String sourceLocation, TableHeads heads) {
    String sourceFile = heads.source().file();
    TableMetadata head = heads.sourceMetadata();
    Optional<ReplicaHead> replica = heads.replica();
    Optional<String> replicated = heads.replicatedFileName();
    Set<Long> lacking = new HashSet<>();
    head.snapshots().forEach(s -> lacking.add(s.snapshotId()));
    replica.ifPresent(
        r -> r.metadata().snapshots().stream().map(Snapshot::snapshotId).forEach(lacking::remove));
    lacking.removeAll(heads.expiredSnapshotIds());
    return new Observation(
        sourceFile,
        head.lastUpdatedMs(),
        replica.map(ReplicaHead::file).orElse(null),
        replicated.map(name -> sourcePath(head, sourceFile, sourceLocation, name)).orElse(null),
        replica.flatMap(ReplicaHead::lastSourceUpdatedMs).orElse(null),
        heads.inSync(),
        oldestUnreplicatedMs(head, sourceFile, replicated, heads.source().settlingSinceMs()),
        lacking.size());
  }

  /**
   * The source path of a metadata file the replica names (a name): the head, an entry of the head's
   * log, else a file in the source's metadata folder.
   */
  private static String sourcePath(
      TableMetadata head, String headFile, String sourceLocation, String name) {
    if (MetadataFileNames.fileName(headFile).equals(name)) {
      return headFile;
    }
    return head.metadataLog().stream()
        .map(TableMetadata.LogEntry::metadataFile)
        .filter(file -> MetadataFileNames.fileName(file).equals(name))
        .findFirst()
        .orElseGet(() -> TableLayout.join(TableLayout.metadataFolder(sourceLocation), name));
  }

  /**
   * The commit time of the first source version after the one replicated last, from the log. When
   * the replica holds the settled head itself, what it lacks is the newer file still settling,
   * written at {@code settlingSinceMs}.
   */
  static long oldestUnreplicatedMs(
      TableMetadata head,
      String headFile,
      Optional<String> replicatedFileName,
      OptionalLong settlingSinceMs) {
    if (replicatedFileName.equals(Optional.of(MetadataFileNames.fileName(headFile)))) {
      return settlingSinceMs.orElse(head.lastUpdatedMs());
    }
    List<TableMetadata.LogEntry> log = head.metadataLog();
    int next = 0;
    if (replicatedFileName.isPresent()) {
      for (int i = 0; i < log.size(); i++) {
        if (MetadataFileNames.fileName(log.get(i).metadataFile())
            .equals(replicatedFileName.get())) {
          next = i + 1;
        }
      }
    }
    return next < log.size() ? log.get(next).timestampMs() : head.lastUpdatedMs();
  }
}
