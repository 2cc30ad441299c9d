package io.icerepl.app.service;

import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.engine.group.GroupTagging;
import io.icerepl.app.engine.group.GroupWork;
import io.icerepl.app.engine.worker.CatalogTableLocations;
import io.icerepl.app.engine.worker.FailoverOperations;
import io.icerepl.app.engine.worker.GroupOperations;
import io.icerepl.app.engine.worker.ReconcileSchedule;
import io.icerepl.app.engine.worker.Reconciler;
import io.icerepl.app.engine.worker.ReplicaMaintenance;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableChecks;
import io.icerepl.app.engine.worker.TableContext;
import io.icerepl.app.engine.worker.TableDiscovery;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.app.engine.worker.TableRunner;
import io.icerepl.app.service.config.ConfigurationCheck;
import io.icerepl.app.service.config.EngineSettings;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.icerepl.app.service.events.EventIntake;
import io.icerepl.app.service.events.EventParser;
import io.icerepl.app.service.s3.S3Properties;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.batch.BatchJobs;
import io.icerepl.merge.state.GroupMembership;
import io.icerepl.merge.state.KnownCurrent;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

/**
 * The one place that creates the service's plain-Java core and binds it to Spring. A {@link Clock}
 * or {@link StoreFactory} bean declared elsewhere (tests, S3 support) replaces the default.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReplicatorProperties.class)
class ServiceConfiguration {
  /** Listings are light: a few at once keep a pass short, more would only load the stores. */
  private static final int TABLE_CHECK_THREADS = 4;

  /** How long a table's check may run before a pass goes on without it and health names it. */
  private static final Duration TABLE_CHECK_DEADLINE = Duration.ofSeconds(10);

  @Bean
  StatusBoard statusBoard(
      ObjectProvider<Clock> clock, MeterRegistry meters, ReplicatorProperties properties) {
    return new StatusBoard(
        clock.getIfAvailable(Clock::systemUTC),
        meters,
        key -> properties.writerClockAllowanceOf(key.target(), key.table()));
  }

  /** The rules; catalogs get the S3 settings of their side where their properties set none. */
  @Bean
  TableRules tableRules(ReplicatorProperties properties, ObjectProvider<S3Properties> s3) {
    return EngineSettings.tableRules(properties, Optional.ofNullable(s3.getIfAvailable()));
  }

  /** Closed after the runner and discovery that use the clients. */
  @Bean(destroyMethod = "close")
  CatalogClients catalogClients() {
    return new CatalogClients();
  }

  @Bean
  CatalogTableLocations catalogTableLocations() {
    return new CatalogTableLocations();
  }

  @Bean
  GroupCutReader groupCutReader(
      ObjectProvider<StoreFactory> stores, ReplicatorProperties properties) {
    return new GroupCutReader(
        stores.getIfAvailable(SchemeStores::local), properties.maxMetadataBytes().toBytes());
  }

  @Bean
  TableDiscovery tableDiscovery(ObjectProvider<StoreFactory> stores, CatalogClients catalogs) {
    return new TableDiscovery(stores.getIfAvailable(SchemeStores::local), catalogs);
  }

  /**
   * The S3 Batch Operations pre-copy of backfills; its S3 Control client, in the target side's
   * region where the jobs run, is opened on the first job.
   */
  @Bean(destroyMethod = "close")
  BatchOperations batchOperations(
      ReplicatorProperties properties, ObjectProvider<S3Properties> s3) {
    String region =
        Optional.ofNullable(s3.getIfAvailable()).map(p -> p.target().region()).orElse("us-east-1");
    return new BatchOperations(
        EngineSettings.batchOperations(properties),
        account -> new BatchJobs(BatchJobs.client(region, Optional.empty()), account));
  }

  /**
   * What the lane's runs and the on-demand operations share; closed after the coordinator, which
   * depends on both, has let running work finish.
   */
  @Bean(destroyMethod = "close")
  TableContext tableContext(
      ReplicatorProperties properties,
      ObjectProvider<StoreFactory> stores,
      ObjectProvider<Clock> clock,
      TableRules rules,
      StatusBoard board,
      CatalogClients catalogs,
      CatalogTableLocations catalogLocations,
      BatchOperations batchOperations) {
    ExecutorService fileExecutor =
        Executors.newFixedThreadPool(
            properties.concurrency().tables() * properties.concurrency().filesPerTable(),
            threads("replicator-files-"));
    return TableContext.builder(
            stores.getIfAvailable(SchemeStores::local),
            clock.getIfAvailable(Clock::systemUTC),
            fileExecutor,
            EngineSettings.replication(properties),
            rules,
            board)
        .catalogs(catalogs)
        .catalogLocations(catalogLocations)
        .batchOperations(batchOperations)
        .groups(new ConfiguredGroups(properties, board))
        .build();
  }

  /** The configured groups as the lanes' runs see them. */
  private record ConfiguredGroups(ReplicatorProperties properties, StatusBoard board)
      implements TableContext.GroupRefs {
    @Override
    public Optional<String> refOf(TableKey key) {
      return groupRef(properties, key);
    }

    @Override
    public KnownCurrent knownCurrentOf(TableKey key) {
      return properties.groups().stream()
          .filter(
              group -> group.target().equals(key.target()) && group.tables().contains(key.table()))
          .findFirst()
          .map(
              group ->
                  new KnownCurrent(Optional.of(group.knownCurrentInterval()), membership(group)))
          .orElse(KnownCurrent.ON_COMMIT);
    }

    /** The group as recorded on its members: every member's replica location, once all found. */
    private Optional<GroupMembership> membership(ReplicatorProperties.Group group) {
      List<String> members = new ArrayList<>();
      for (String table : group.tables()) {
        Optional<TableKey> found = board.findTable(group.target(), table);
        if (found.isEmpty()) {
          return Optional.empty();
        }
        members.add(found.get().targetLocation());
      }
      return Optional.of(
          new GroupMembership(
              group.name(), group.ref(), members, group.clockSkew(), group.transactionWindow()));
    }
  }

  /**
   * The ref of the group a table belongs to, when the group's cuts are tagged: only then do rounds
   * move the group's catalog entries, so only then are they held for it.
   */
  private static Optional<String> groupRef(ReplicatorProperties properties, TableKey key) {
    return properties.groups().stream()
        .filter(group -> !group.tagInterval().isZero())
        .filter(
            group -> group.target().equals(key.target()) && group.tables().contains(key.table()))
        .map(ReplicatorProperties.Group::ref)
        .findFirst();
  }

  /** Closed with the context it runs in. */
  @Bean(destroyMethod = "")
  TableRunner tableRunner(TableContext context) {
    return new TableRunner(context);
  }

  @Bean
  ReplicaMaintenance replicaMaintenance(TableContext context) {
    return new ReplicaMaintenance(context);
  }

  @Bean
  FailoverOperations failoverOperations(TableContext context) {
    return new FailoverOperations(context);
  }

  @Bean
  GroupOperations groupOperations(TableContext context) {
    return new GroupOperations(context);
  }

  /** Stopped by {@link #coordinatorShutdown}, with the configured bound. */
  @Bean(destroyMethod = "")
  ReplicationCoordinator replicationCoordinator(
      ReplicatorProperties properties,
      TableRunner runner,
      ReplicaMaintenance maintenance,
      StatusBoard board) {
    int tables = properties.concurrency().tables();
    return new ReplicationCoordinator(
        runner::replicate,
        maintenance::expire,
        board::failed,
        board::laneRefused,
        properties.limits().lanesPerRule(),
        Executors.newFixedThreadPool(tables, threads("replicator-table-")),
        Executors.newSingleThreadScheduledExecutor(threads("replicator-retry-")),
        tables,
        properties.retry().initialBackoff(),
        properties.retry().maxBackoff());
  }

  /**
   * Stops the coordinator when the context closes (SIGTERM): running replications get {@code
   * replicator.shutdown-timeout}, then are abandoned. Depending on the coordinator, it is destroyed
   * before it, and so before the runner and the stores the runs write through.
   */
  @Bean
  DisposableBean coordinatorShutdown(
      ReplicationCoordinator coordinator, ReplicatorProperties properties, TableContext context) {
    return () -> coordinator.shutdown(properties.shutdownTimeout(), context::abandonFileSteps);
  }

  /**
   * Where reconciliation's per-table checks run, off the scheduler: a replica whose store hangs
   * stalls only its own table. Closed without a wait (its threads are daemons).
   */
  @Bean
  TableChecks tableChecks(ObjectProvider<Clock> clock) {
    return new TableChecks(
        TABLE_CHECK_THREADS, TABLE_CHECK_DEADLINE, clock.getIfAvailable(Clock::systemUTC));
  }

  @Bean
  Reconciler reconciler(
      TableRules rules,
      TableDiscovery discovery,
      ReplicationCoordinator coordinator,
      StatusBoard board,
      TableRunner runner,
      ReplicatorProperties properties,
      ObjectProvider<Clock> clock,
      TableChecks checks) {
    // what reconciliation would act on is checked first: a service asked to do nothing, or a group
    // of tables no rule replicates, never starts
    ConfigurationCheck.check(properties, rules, discovery);
    List<ReplicatorProperties.Group> groups = properties.groups();
    return new Reconciler(
        rules,
        discovery,
        coordinator,
        board,
        runner,
        clock.getIfAvailable(Clock::systemUTC),
        new ReconcileSchedule(
            properties.reconciliationInterval(), properties.reconciliationIdleInterval()),
        key ->
            groups.stream()
                .anyMatch(g -> g.target().equals(key.target()) && g.tables().contains(key.table())),
        checks);
  }

  @Bean
  ServiceSchedules serviceSchedules(
      ReplicatorProperties properties,
      TableRules rules,
      Reconciler reconciler,
      TaskScheduler taskScheduler,
      ReplicaMaintenance maintenance,
      GroupTagging tagging,
      GroupWork groupWork,
      ReplicationCoordinator coordinator,
      StatusBoard board) {
    return new ServiceSchedules(
        properties.reconciliationInterval(),
        rules.rules(),
        reconciler,
        taskScheduler,
        maintenance::verify,
        properties.groups(),
        // off the scheduler, which also runs reconciliation: a round that hangs stalls no table
        group ->
            groupWork.round(
                group.name(),
                "tagging round",
                GroupWork.roundDeadline(group.settings()),
                () -> tagging.tag(group.settings())),
        // a run of a table found current records it so when its record is due: an idle member
        // holds the group's cut back by at most about its known-current-interval
        group ->
            group.tables().stream()
                .map(table -> board.findTable(group.target(), table))
                .flatMap(Optional::stream)
                .forEach(coordinator::trigger));
  }

  @Bean
  EventIntake eventIntake(
      ReplicatorProperties properties,
      TableRules rules,
      TableDiscovery discovery,
      ReplicationCoordinator coordinator,
      MeterRegistry meters,
      CatalogTableLocations catalogLocations) {
    return new EventIntake(
        new EventParser(properties.limits().recordsPerMessage()),
        rules,
        discovery,
        coordinator,
        meters,
        catalogLocations);
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
