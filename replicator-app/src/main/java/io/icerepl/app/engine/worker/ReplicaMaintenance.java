package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.retention.DeletionProgress;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.verify.VerifyResult;
import io.icerepl.app.engine.verify.VerifySource;
import io.icerepl.copier.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What is run on a replica besides replication, on a schedule or on demand, sharing the lanes'
 * context: its retention ({@link #expire}) and its verification against its source ({@link
 * #verify}). Each runs in the table's lane.
 */
public final class ReplicaMaintenance {
  private final TableContext context;

  public ReplicaMaintenance(TableContext context) {
    this.context = context;
  }

  public RetentionResult expire(TableKey key) {
    return RetentionRunner.expire(
        context.stores().targetStore(key.targetLocation()),
        context.clock(),
        key.targetLocation(),
        context.rules().rule(key.rule()).retention(),
        context.options().maxMetadataBytes(),
        DeletionProgress.Listener.NONE);
  }

  /**
   * Verifies the key's replica against its rule's source, whose head is resolved as {@link
   * TableRunner#replicate} resolves it (the catalog's pointer, else the folder's settled head),
   * reading only; tells the board the outcome, or that it could not complete.
   */
  public VerifyReport verify(TableKey key) {
    try {
      TableContext.Source source = context.source(key);
      ObjectStore sourceStore = context.stores().sourceStore(source.location());
      String head =
          source
              .catalogs()
              .sourceHead()
              .orElseGet(
                  () ->
                      new FileSystemHeadResolver(
                          sourceStore, context.clock(), context.options().settleTime()))
              .head(source.location())
              .file();
      List<String> first = new ArrayList<>();
      VerifyResult result =
          new TableVerifier(
                  context.stores().targetStore(key.targetLocation()),
                  context.fileExecutor(),
                  context.options().parallelism(),
                  context.options().maxMetadataBytes())
              .verify(
                  key.targetLocation(),
                  Optional.of(new VerifySource(sourceStore, source.location(), head)),
                  line -> {
                    if (first.size() < VerifyReport.PROBLEMS_KEPT) {
                      first.add(line);
                    }
                  });
      VerifyReport report =
          new VerifyReport(context.clock().instant(), result.checked(), result.problems(), first);
      context.board().verified(key, report);
      return report;
    } catch (RuntimeException e) {
      context.board().verifyFailed(key, e);
      throw e;
    }
  }
}
