package io.icerepl.app.service.api;

import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.ReplicaMaintenance;
import io.icerepl.app.service.security.ApiProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * On-demand verification of one replica, addressed as the status API addresses it. A mutating
 * endpoint as far as access goes: it always needs the API token, and is logged with its caller.
 */
@RestController
@RequestMapping("/api/replications")
public class VerifyController {
  private final TableLanes lanes;
  private final ReplicaMaintenance maintenance;
  private final OnDemandRuns<VerifyReport> verifications;

  public VerifyController(TableLanes lanes, ReplicaMaintenance maintenance, ApiProperties api) {
    this.lanes = lanes;
    this.maintenance = maintenance;
    this.verifications =
        new OnDemandRuns<>(
            "verifications",
            report -> report.checked() + " checked, " + report.problems() + " problems",
            api.verify().maxPending(),
            api.verify().timeout());
  }

  /**
   * Verifies the replica now against its rule's source, in the table's lane, and returns the report
   * (also kept in the table's status as {@code lastVerify}); 202 when it is still running after
   * {@code replicator.api.verify.timeout}, 409 when it could not complete, 429 when too many are
   * pending.
   */
  @PostMapping("/{target}/{namespace}/{table}/verify")
  public ResponseEntity<Object> verify(
      @PathVariable String target,
      @PathVariable String namespace,
      @PathVariable String table,
      Principal caller,
      HttpServletRequest request)
      throws InterruptedException {
    return lanes.forTable(
        target,
        namespace,
        table,
        key -> {
          OnDemandRuns.Outcome<VerifyReport> outcome =
              lanes.inLane(
                  verifications,
                  key,
                  "verification",
                  "verify",
                  maintenance::verify,
                  TableLanes.Caller.of(caller, request));
          String cannot = OnDemandAnswers.cannot("verify", key);
          return OnDemandAnswers.answer(
              outcome,
              report -> report,
              OnDemandAnswers.running(
                  "Verification", key, "", "its report will be the table's lastVerify"),
              OnDemandAnswers.busy(cannot, "verifications"),
              cannot,
              List::of);
        });
  }
}
