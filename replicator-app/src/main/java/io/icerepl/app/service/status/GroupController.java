package io.icerepl.app.service.status;

import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TablePromotionException;
import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableOperations;
import io.icerepl.app.logging.Redaction;
import io.icerepl.app.service.config.ReplicatorProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The replication groups' cuts ({@code replicator.groups}): for each group the moment every table
 * is known replicated, the table holding it back, and each replica's snapshot of that moment, so
 * that {@code VERSION AS OF <snapshotId>} on every table reads one moment of the sources.
 */
@RestController
@RequestMapping("/api/groups")
public class GroupController {
  private static final Logger LOG = LoggerFactory.getLogger(GroupController.class);

  private final GroupCuts cuts;
  private final ReplicatorProperties properties;
  private final StatusBoard board;
  private final ReplicationCoordinator coordinator;
  private final TableOperations operations;
  private final GroupCatchUp catchUp;
  private final GroupTagging tagging;
  private final GroupWork work;

  /** How often a safe promotion tries to tag its fresh cut while a scheduled round runs. */
  private static final int TAG_ATTEMPTS = 20;

  public GroupController(
      GroupCuts cuts,
      ReplicatorProperties properties,
      StatusBoard board,
      ReplicationCoordinator coordinator,
      TableOperations operations,
      GroupCatchUp catchUp,
      GroupTagging tagging,
      GroupWork work) {
    this.catchUp = catchUp;
    this.work = work;
    this.tagging = tagging;
    this.cuts = cuts;
    this.properties = properties;
    this.board = board;
    this.coordinator = coordinator;
    this.operations = operations;
  }

  /**
   * One table of a consistent promotion's answer.
   *
   * @param cutSnapshotId the promoted {@code main}
   * @param keptAfterCut snapshots replicated after the cut, kept on {@code branch}
   * @param newestKeptCommit the newest of them: what the promoted table's readers do not see
   */
  public record TableAnswer(
      String table,
      long cutSnapshotId,
      int keptAfterCut,
      String branch,
      Instant newestKeptCommit,
      boolean alreadyPromoted,
      long epoch,
      String metadataFile) {}

  /** A consistent promotion's answer: the cut every table was promoted at. */
  public record PromotionAnswer(
      String group, String cutTag, Instant cut, List<TableAnswer> tables) {}

  /**
   * Promotes every table of the group at its newest cut tag all replicas carry (failover at one
   * cut, as {@code promote --consistent} does), each in its table's lane. {@code mode=now} promotes
   * at what the replicas hold; {@code mode=safe} (planned failover, the sources reachable) first
   * replicates every table up to what its source serves, verifies it, and tags a fresh cut, which
   * then lies after every commit the sources held when asked (less the clock-skew allowance). 200
   * with the cut and each table's promotion (also on a rerun, which completes the same cut without
   * catching up again); 400 without a mode; 404 for an unknown group; 409 when a table is not
   * found, does not catch up or verify, no cut is common to every replica, or a table was promoted
   * on its own or at another cut (tables not promoted yet are left as they were).
   */
  @PostMapping("/{name}/promote")
  public ResponseEntity<Object> promote(
      @PathVariable String name,
      @RequestParam(required = false) String mode,
      Principal caller,
      HttpServletRequest request) {
    Optional<ReplicatorProperties.Group> group =
        properties.groups().stream().filter(g -> g.name().equals(name)).findFirst();
    if (group.isEmpty()) {
      return ResponseEntity.notFound().build();
    }
    boolean safe = PromotionMode.SAFE.label().equals(mode);
    if (!safe && !PromotionMode.NOW.label().equals(mode)) {
      return error(
          HttpStatus.BAD_REQUEST,
          "Give mode=now (promote at the newest cut the replicas prove) or mode=safe (replicate"
              + " and verify every table first, then promote at a fresh cut)");
    }
    List<TableKey> keys = new ArrayList<>();
    for (String table : group.get().tables()) {
      Optional<TableKey> key = board.findTable(group.get().target(), table);
      if (key.isEmpty()) {
        return error(
            HttpStatus.CONFLICT,
            "Cannot promote group " + name + ": " + table + " is not found under its target");
      }
      keys.add(key.get());
    }
    LOG.info(
        "group {}: consistent promotion ({} mode) asked by {} from {}",
        name,
        mode,
        caller.getName(),
        request.getRemoteAddr());
    try {
      if (keys.stream().noneMatch(operations::isPromoted)) {
        if (safe) {
          catchUp.catchUp(group.get(), keys);
          tagFreshCut(group.get());
        } else {
          tagProvenCut(group.get());
        }
      }
      GroupPromotion.Result result =
          operations.promoteGroup(
              keys,
              group.get().ref(),
              (key, cutTag) ->
                  join(
                      coordinator.runInLane(
                          key,
                          "promote at cut " + cutTag,
                          k -> operations.promoteAtCut(k, cutTag))));
      LOG.info("group {}: promoted at cut {}", name, result.cutTag());
      return ResponseEntity.ok(answer(name, result));
    } catch (TablePromotionException | IllegalStateException | GroupCatchUp.Refused e) {
      LOG.warn("group {}: consistent promotion refused: {}", name, e.getMessage());
      return error(HttpStatus.CONFLICT, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error(HttpStatus.SERVICE_UNAVAILABLE, "Interrupted: the service is stopping");
    }
  }

  /**
   * Now mode: tags the newest cut the replicas' own records prove, so the group is promoted at it
   * rather than at the last scheduled cut tag (up to a tag-interval older). A replica that cannot
   * be tagged leaves the promotion to the newest cut tag every replica already carries, which is a
   * cut too: a failover is not held up by it.
   */
  private void tagProvenCut(ReplicatorProperties.Group group) throws InterruptedException {
    try {
      tagFreshCut(group);
    } catch (GroupCatchUp.Refused e) {
      LOG.warn(
          "group {}: the newest cut could not be tagged ({}); promoting at the newest cut tag every"
              + " table carries",
          group.name(),
          e.getMessage());
    }
  }

  /**
   * Tags the group's cut as it stands now, after a scheduled round under way. The round runs on the
   * group's pool ({@link GroupWork}), not on this request's thread, and is waited for until the
   * group's round deadline: a replica that does not answer refuses the promotion, naming the group,
   * rather than holding the request.
   */
  private void tagFreshCut(ReplicatorProperties.Group group) throws InterruptedException {
    Duration deadline = GroupWork.roundDeadline(group);
    long until = System.nanoTime() + deadline.toNanos();
    try {
      for (int attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
        Duration left = Duration.ofNanos(Math.max(until - System.nanoTime(), 1));
        if (work.roundAndWait(
            group.name(),
            "safe promotion's tagging of a fresh cut",
            left,
            () -> tagging.tag(group))) {
          return;
        }
        Thread.sleep(100);
      }
    } catch (TimeoutException e) {
      throw new GroupCatchUp.Refused(
          "Cannot promote group "
              + group.name()
              + " safely: tagging its fresh cut on "
              + group.tables()
              + " did not end within "
              + deadline
              + " (a replica that does not answer?); the round goes on, and health shows the group"
              + " as stuck while it does");
    }
    throw new GroupCatchUp.Refused(
        "Cannot promote group "
            + group.name()
            + " safely: its fresh cut could not be tagged on every table (see the log)");
  }

  private static PromotionAnswer answer(String name, GroupPromotion.Result result) {
    List<TableAnswer> tables = new ArrayList<>();
    for (GroupPromotion.TableResult table : result.tables()) {
      tables.add(
          new TableAnswer(
              table.table(),
              table.cutSnapshotId(),
              table.keptAfterCut(),
              table.branch(),
              table.newestKeptCommit(),
              table.result().alreadyPromoted(),
              table.result().promotion().epoch(),
              table.result().metadataFile()));
    }
    return new PromotionAnswer(name, result.cutTag(), result.cut(), tables);
  }

  /** The lane's result; its failure as thrown by the promotion itself. */
  private static PromotionResult join(CompletableFuture<PromotionResult> promotion) {
    try {
      return promotion.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  private static ResponseEntity<Object> error(HttpStatus status, String message) {
    return ResponseEntity.status(status).body(Map.of("error", Redaction.apply(message)));
  }

  @GetMapping
  public List<GroupCutReader.Report> list() {
    return cuts.all();
  }

  @GetMapping("/{name}")
  public ResponseEntity<GroupCutReader.Report> get(@PathVariable String name) {
    return cuts.get(name)
        .map(ResponseEntity::ok)
        .orElseGet(() -> ResponseEntity.notFound().build());
  }
}
