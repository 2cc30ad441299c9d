package io.icerepl.app.service;

import io.icerepl.app.engine.worker.Reconciler;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.service.config.ReplicatorProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * Starts reconciliation every {@code replicator.reconciliation-interval} (the first pass at once,
 * which is also the backfill of new tables), each rule's retention every {@code retention.interval}
 * when enabled, its verification every {@code verify.interval} when enabled and each replication
 * group's tagging every {@code tag-interval} unless zero and the checks that keep its tables'
 * known-current records fresh; stops them before the coordinator shuts down.
 */
public final class ServiceSchedules implements SmartLifecycle {
  private final Duration reconciliationInterval;
  private final List<TableRule> rules;
  private final Reconciler reconciler;
  private final TaskScheduler scheduler;
  private final Function<TableKey, ?> verification;
  private final List<ReplicatorProperties.Group> groups;
  private final Consumer<ReplicatorProperties.Group> tagging;
  private final Consumer<ReplicatorProperties.Group> confirming;
  private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();

  /**
   * @param verification verifies one replica and records the outcome (run in its lane)
   * @param tagging starts one tagging round of a group's cut and returns at once: the round runs
   *     off this scheduler, which also runs reconciliation
   * @param confirming asks for a check of each table of a group every {@code
   *     known-current-interval}, so that each replica's record of being current stays about that
   *     fresh
   */
  public ServiceSchedules(
      Duration reconciliationInterval,
      List<TableRule> rules,
      Reconciler reconciler,
      TaskScheduler scheduler,
      Function<TableKey, ?> verification,
      List<ReplicatorProperties.Group> groups,
      Consumer<ReplicatorProperties.Group> tagging,
      Consumer<ReplicatorProperties.Group> confirming) {
    this.confirming = confirming;
    this.reconciliationInterval = reconciliationInterval;
    this.rules = List.copyOf(rules);
    this.reconciler = reconciler;
    this.scheduler = scheduler;
    this.verification = verification;
    this.groups = List.copyOf(groups);
    this.tagging = tagging;
  }

  @Override
  public synchronized void start() {
    scheduled.add(scheduler.scheduleWithFixedDelay(reconciler::reconcile, reconciliationInterval));
    for (TableRule rule : rules) {
      rule.retentionInterval()
          .ifPresent(
              interval ->
                  scheduled.add(
                      scheduler.scheduleWithFixedDelay(
                          () -> reconciler.expire(rule),
                          scheduler.getClock().instant().plus(interval),
                          interval)));
      rule.verifyInterval()
          .ifPresent(
              interval ->
                  scheduled.add(
                      scheduler.scheduleWithFixedDelay(
                          () -> reconciler.verify(rule, verification),
                          scheduler.getClock().instant().plus(interval),
                          interval)));
    }
    for (ReplicatorProperties.Group group : groups) {
      if (!group.tagInterval().isZero()) {
        scheduled.add(
            scheduler.scheduleWithFixedDelay(
                () -> tagging.accept(group),
                scheduler.getClock().instant().plus(group.tagInterval()),
                group.tagInterval()));
      }
      Duration confirm = group.knownCurrentInterval();
      scheduled.add(
          scheduler.scheduleWithFixedDelay(
              () -> confirming.accept(group),
              scheduler.getClock().instant().plus(confirm),
              confirm));
    }
  }

  @Override
  public synchronized void stop() {
    scheduled.forEach(f -> f.cancel(false));
    scheduled.clear();
  }

  @Override
  public synchronized boolean isRunning() {
    return !scheduled.isEmpty();
  }
}
