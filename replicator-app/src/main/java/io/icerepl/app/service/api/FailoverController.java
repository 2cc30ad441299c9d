package io.icerepl.app.service.api;

import io.icerepl.app.engine.failover.FailbackSummary;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TableFailback;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.FailoverOperations;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.service.security.ApiProperties;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLocation;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Failover and fail-back of one replica, addressed as the status API addresses it, run in the
 * table's lane as the {@code promote} and {@code failback} commands run. Mutating endpoints: they
 * always need the API token, and are logged with their caller and what was asked.
 */
@RestController
@RequestMapping("/api/replications")
public class FailoverController {
  /** Tag names end up in the table's refs: letters, digits and {@code . _ -} only. */
  private static final Pattern TAG_PREFIX = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  private final TableLanes lanes;
  private final FailoverOperations failover;
  private final OnDemandRuns<PromotionResult> promotions;
  private final OnDemandRuns<FailbackSummary> failbacks;

  public FailoverController(TableLanes lanes, FailoverOperations failover, ApiProperties api) {
    this.lanes = lanes;
    this.failover = failover;
    this.promotions =
        new OnDemandRuns<>(
            "promotions",
            result ->
                (result.alreadyPromoted() ? "already promoted" : "promoted")
                    + ", epoch "
                    + result.promotion().epoch()
                    + ", version "
                    + result.promotion().replicaVersion(),
            api.promote().maxPending(),
            api.promote().timeout());
    this.failbacks =
        new OnDemandRuns<>(
            "fail-backs",
            summary ->
                "failed back into "
                    + summary.originalLocation()
                    + ", orphan commits kept as "
                    + summary.orphanTags(),
            api.failback().maxPending(),
            api.failback().timeout());
  }

  /**
   * The promotion's answer.
   *
   * @param status {@code promoted}, or {@code already promoted} on a rerun
   * @param promotedVersion the replica version N of the promoted {@code v<N>.metadata.json}
   * @param lastSourceMetadataFile the last source version replicated: how far behind the source the
   *     promoted table was known to be
   * @param lastSourceCommitAt that version's commit time (null when unknown)
   * @param snapshots the promoted table's snapshots
   * @param head its current snapshot (null when it has none)
   * @param problems the first problems safe mode's verification found (a forced promotion)
   */
  public record PromotionAnswer(
      String status,
      String table,
      String target,
      String location,
      long epoch,
      String mode,
      Instant promotedAt,
      long promotedVersion,
      String metadataFile,
      String lastSourceMetadataFile,
      Instant lastSourceCommitAt,
      int snapshots,
      Long head,
      List<String> problems) {}

  /** A fail-back's parameters as a JSON body, instead of query parameters. */
  public record FailbackRequest(String oldSource, String tagPrefix) {}

  /**
   * Promotes the replica (failover) in the table's lane: {@code mode=safe} replicates what the
   * source still serves, verifies the replica and refuses it when verify finds a problem unless
   * {@code force=true}; {@code mode=now} promotes what the replica holds. There is no default: a
   * promotion cannot be undone. 200 with the promotion (also on a rerun, {@code already promoted});
   * 202 when it is still running after {@code replicator.api.promote.timeout}; 400 without a mode
   * or for an unknown one, nothing written; 409 when refused (with the problems verify found) or
   * failed; 429 when too many are pending. With {@code replicaVersion} (the N of the status's
   * {@code replicaMetadataFile} {@code v<N>.metadata.json} the caller decided on), 409 when the
   * replica has moved since: a retried or replayed request after a switch-back never promotes
   * again.
   */
  @PostMapping("/{target}/{namespace}/{table}/promote")
  public ResponseEntity<Object> promote(
      @PathVariable String target,
      @PathVariable String namespace,
      @PathVariable String table,
      @RequestParam(required = false) String mode,
      @RequestParam(defaultValue = "false") boolean force,
      @RequestParam(required = false) Long replicaVersion,
      Principal caller,
      HttpServletRequest request)
      throws InterruptedException {
    return lanes.forTable(
        target,
        namespace,
        table,
        key -> {
          OptionalLong decidedOn =
              replicaVersion == null ? OptionalLong.empty() : OptionalLong.of(replicaVersion);
          if (mode == null || mode.isBlank()) {
            // a promotion cannot be undone: a request that does not say how is a probe, not a
            // failover
            return OnDemandAnswers.error(
                HttpStatus.BAD_REQUEST,
                OnDemandAnswers.cannot("promote", key)
                    + "give mode=safe (replicate what the source still serves, verify, then promote)"
                    + " or mode=now (promote what the replica holds); nothing was written",
                List.of());
          }
          PromotionMode promotionMode;
          try {
            promotionMode = PromotionMode.parse(mode);
          } catch (IllegalArgumentException e) {
            return OnDemandAnswers.error(HttpStatus.BAD_REQUEST, e.getMessage(), List.of());
          }
          List<String> problems = new ArrayList<>();
          Consumer<String> firstProblems =
              line -> {
                synchronized (problems) {
                  if (problems.size() < VerifyReport.PROBLEMS_KEPT) {
                    problems.add(line);
                  }
                }
              };
          OnDemandRuns.Outcome<PromotionResult> outcome =
              lanes.inLane(
                  promotions,
                  key,
                  "promotion (mode " + promotionMode.label() + (force ? ", forced)" : ")"),
                  "promote",
                  k -> failover.promote(k, promotionMode, force, firstProblems, decidedOn),
                  TableLanes.Caller.of(caller, request));
          return OnDemandAnswers.answer(
              outcome,
              result -> answer(key, result, copy(problems)),
              OnDemandAnswers.running(
                  "Promotion", key, "", "the table's state is PROMOTED once it is done"),
              OnDemandAnswers.busy(OnDemandAnswers.cannot("promote", key), "promotions"),
              "",
              () -> copy(problems));
        });
  }

  /**
   * Fails the promoted replica back into its original location ({@code oldSource}, default the
   * rule's source location of the table), in the table's lane: the original becomes a replica of
   * the promoted table, the commits only the old source made kept under tags named {@code
   * tagPrefix} (default {@value TableFailback#DEFAULT_TAG_PREFIX}). Parameters as query parameters
   * or a JSON body. 200 with the summary, its orphan tags also in the table's status as {@code
   * lastFailback}; 202 when still running after {@code replicator.api.failback.timeout}; 400 for a
   * bad tag prefix; 409 when refused or failed, the original left as it was; 429 when too many are
   * pending. With {@code epoch} (the promotion's epoch the caller decided on), 409 when the table
   * is no longer promoted at that epoch: a replayed request fails back nothing.
   */
  @PostMapping("/{target}/{namespace}/{table}/failback")
  public ResponseEntity<Object> failback(
      @PathVariable String target,
      @PathVariable String namespace,
      @PathVariable String table,
      @RequestParam(required = false) String oldSource,
      @RequestParam(required = false) String tagPrefix,
      @RequestParam(required = false) Long epoch,
      @RequestBody(required = false) FailbackRequest body,
      Principal caller,
      HttpServletRequest request)
      throws InterruptedException {
    return lanes.forTable(
        target,
        namespace,
        table,
        key -> {
          String original =
              firstGiven(oldSource, body == null ? null : body.oldSource(), key.sourceLocation());
          String prefix =
              firstGiven(
                  tagPrefix,
                  body == null ? null : body.tagPrefix(),
                  TableFailback.DEFAULT_TAG_PREFIX);
          if (!TAG_PREFIX.matcher(prefix).matches()) {
            return OnDemandAnswers.error(
                HttpStatus.BAD_REQUEST,
                OnDemandAnswers.cannot("fail back", key)
                    + "the tag prefix must be 1 to 100 letters, digits, '.', '_' or '-'",
                List.of());
          }
          try {
            TableLocation.of(original);
          } catch (IllegalArgumentException e) {
            // validated as what it is before it is logged or echoed: no forged line, no forged
            // answer
            return OnDemandAnswers.error(
                HttpStatus.BAD_REQUEST,
                OnDemandAnswers.cannot("fail back", key) + e.getMessage(),
                List.of());
          }
          OnDemandRuns.Outcome<FailbackSummary> outcome =
              lanes.inLane(
                  failbacks,
                  key,
                  "fail-back into " + original + " (tag prefix " + prefix + ")",
                  "fail back",
                  k ->
                      failover.failback(
                          k,
                          original,
                          prefix,
                          epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch)),
                  TableLanes.Caller.of(caller, request));
          return OnDemandAnswers.answer(
              outcome,
              summary -> summary,
              OnDemandAnswers.running(
                  "Fail-back",
                  key,
                  " into " + original,
                  "its summary will be the table's lastFailback"),
              OnDemandAnswers.busy(OnDemandAnswers.cannot("fail back", key), "fail-backs"),
              "",
              List::of);
        });
  }

  private static PromotionAnswer answer(
      TableKey key, PromotionResult result, List<String> problems) {
    Promotion promotion = result.promotion();
    TableMetadata metadata = result.metadata();
    return new PromotionAnswer(
        result.alreadyPromoted() ? "already promoted" : "promoted",
        key.table(),
        key.target(),
        key.targetLocation(),
        promotion.epoch(),
        promotion.mode(),
        Instant.ofEpochMilli(promotion.promotedAtMillis()),
        promotion.replicaVersion(),
        result.metadataFile(),
        promotion.lastSourceMetadataFile(),
        promotion.lastSourceLastUpdatedMs() == null
            ? null
            : Instant.ofEpochMilli(promotion.lastSourceLastUpdatedMs()),
        metadata.snapshots().size(),
        metadata.currentSnapshotId().orElse(null),
        problems);
  }

  private static String firstGiven(String query, String body, String otherwise) {
    if (query != null && !query.isBlank()) {
      return query;
    }
    return body != null && !body.isBlank() ? body : otherwise;
  }

  private static List<String> copy(List<String> problems) {
    synchronized (problems) {
      return List.copyOf(problems);
    }
  }
}
