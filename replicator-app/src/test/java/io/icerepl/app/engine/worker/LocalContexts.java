package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.copier.store.ObjectStore;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * A lane context over given stores, for the engine tests that drive a {@link TableRunner} directly:
 * one rule ({@code rule}, target {@code target}) over local tables, default options, no retention,
 * the board given.
 */
final class LocalContexts {
  private LocalContexts() {}

  static TableContext.Builder builder(
      ObjectStore source, ObjectStore target, Clock clock, TableStatus board) {
    StoreFactory stores =
        new StoreFactory() {
          @Override
          public ObjectStore sourceStore(String location) {
            return source;
          }

          @Override
          public ObjectStore targetStore(String location) {
            return target;
          }
        };
    TableRule rule =
        new TableRule(
            "rule",
            "file:/",
            List.of(new RuleTarget("target", "file:/replica", List.of())),
            List.of(),
            RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false),
            Optional.empty());
    return TableContext.builder(
        stores,
        clock,
        Executors.newFixedThreadPool(2),
        ReplicationOptions.defaults(),
        new TableRules(List.of(rule)),
        board);
  }
}
