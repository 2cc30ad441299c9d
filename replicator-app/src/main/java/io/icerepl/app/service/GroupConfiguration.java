package io.icerepl.app.service;

import io.icerepl.app.engine.group.GroupCatchUp;
import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.engine.group.GroupCuts;
import io.icerepl.app.engine.group.GroupPromoter;
import io.icerepl.app.engine.group.GroupSettings;
import io.icerepl.app.engine.group.GroupTagging;
import io.icerepl.app.engine.group.GroupWork;
import io.icerepl.app.engine.worker.GroupOperations;
import io.icerepl.app.engine.worker.ReplicaMaintenance;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableRunner;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.icerepl.app.service.status.StatusBoard;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Binds the engine's group orchestration ({@code engine.group}) to {@code replicator.groups}: where
 * groups' work runs, their cuts, tagging rounds, catch-up and consistent promotion.
 */
@Configuration(proxyBeanMethods = false)
class GroupConfiguration {
  // dropped at shutdown without a wait: a stuck read must not hold the bounded shutdown
  @Bean(destroyMethod = "close")
  GroupWork groupWork(ReplicatorProperties properties, ObjectProvider<Clock> clock) {
    return new GroupWork(properties.groups().size(), clock.getIfAvailable(Clock::systemUTC));
  }

  @Bean
  GroupCuts groupCuts(
      StatusBoard board,
      ReplicatorProperties properties,
      GroupCutReader reader,
      ObjectProvider<Clock> clock,
      GroupWork work) {
    List<GroupSettings> groups =
        properties.groups().stream().map(ReplicatorProperties.Group::settings).toList();
    return new GroupCuts(
        board::findTable, groups, reader, clock.getIfAvailable(Clock::systemUTC), work);
  }

  @Bean
  GroupTagging groupTagging(
      GroupCuts cuts, ReplicationCoordinator coordinator, GroupOperations groups) {
    return new GroupTagging(cuts, coordinator, groups);
  }

  @Bean
  GroupCatchUp groupCatchUp(
      ReplicationCoordinator coordinator,
      TableRunner runner,
      ReplicaMaintenance maintenance,
      GroupOperations groups,
      ObjectProvider<Clock> clock) {
    return new GroupCatchUp(
        coordinator, runner, maintenance, groups, clock.getIfAvailable(Clock::systemUTC));
  }

  @Bean
  GroupPromoter groupPromoter(
      ReplicationCoordinator coordinator,
      GroupOperations groups,
      GroupCatchUp catchUp,
      GroupTagging tagging,
      GroupWork work) {
    return new GroupPromoter(coordinator, groups, catchUp, tagging, work);
  }
}
