package io.icerepl.app.service.metrics;

import io.icerepl.app.engine.group.GroupCuts;
import io.icerepl.app.engine.group.GroupSettings;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The {@code replicator_group_cut_lag_seconds} and {@code replicator_group_failover_loss_seconds}
 * gauges, one per group of {@code replicator.groups} (tag {@code group}; NaN while the group has no
 * cut), read from {@link GroupCuts} when scraped.
 */
@Component
class GroupCutGauges {
  GroupCutGauges(GroupCuts cuts, ReplicatorProperties properties, MeterRegistry meters) {
    for (ReplicatorProperties.Group configured : properties.groups()) {
      GroupSettings group = configured.settings();
      Gauge.builder("replicator.group.cut.lag", cuts, c -> c.cutLagSeconds(group))
          .description("How far a replication group's cut is behind now; NaN without a cut")
          .tag("group", group.name())
          .baseUnit("seconds")
          .register(meters);
      Gauge.builder("replicator.group.failover.loss", cuts, c -> c.lossWindowSeconds(group))
          .description(
              "What a consistent failover of the group now would lose: the time from the cut it"
                  + " would promote at to now; NaN without a cut")
          .tag("group", group.name())
          .baseUnit("seconds")
          .register(meters);
    }
  }
}
