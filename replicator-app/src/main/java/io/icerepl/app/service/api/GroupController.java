package io.icerepl.app.service.api;

import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.TablePromotionException;
import io.icerepl.app.engine.group.GroupCatchUp;
import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.engine.group.GroupCuts;
import io.icerepl.app.engine.group.GroupPromoter;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.logging.Redaction;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.icerepl.app.service.status.StatusBoard;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  private final GroupPromoter promoter;
  private final ReplicatorProperties properties;
  private final StatusBoard board;

  public GroupController(
      GroupCuts cuts, GroupPromoter promoter, ReplicatorProperties properties, StatusBoard board) {
    this.cuts = cuts;
    this.promoter = promoter;
    this.properties = properties;
    this.board = board;
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
      GroupPromotion.Result result = promoter.promote(group.get().settings(), keys, safe);
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
