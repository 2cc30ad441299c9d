package io.icerepl.app.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.worker.TableKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

class OnDemandAnswersTest {
  private static ResponseEntity<Object> answer(
      OnDemandRuns.Outcome<String> outcome, List<String> problems) {
    return OnDemandAnswers.answer(
        outcome,
        result -> Map.of("result", result),
        waited -> "Verification of db.t on east still running after " + waited,
        OnDemandAnswers.busy("Cannot verify db.t on east: ", "verifications"),
        "Cannot verify db.t on east: ",
        () -> problems);
  }

  @Test
  void doneIsOkWithTheBodyOfTheResult() {
    ResponseEntity<Object> ok = answer(new OnDemandRuns.Done<>("clean"), List.of());

    assertThat(ok.getStatusCode()).isEqualTo(HttpStatus.OK);
    assertThat(ok.getBody()).isEqualTo(Map.of("result", "clean"));
  }

  @Test
  void runningIsAcceptedWithTheWaitInItsMessage() {
    ResponseEntity<Object> accepted =
        answer(new OnDemandRuns.Running<>(Duration.ofSeconds(30)), List.of());

    assertThat(accepted.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
    assertThat(accepted.getBody())
        .isEqualTo(
            Map.of(
                "status",
                "running",
                "message",
                "Verification of db.t on east still running after PT30S"));
  }

  @Test
  void tooManyPendingIsTooManyRequestsNamingHowMany() {
    ResponseEntity<Object> busy = answer(new OnDemandRuns.TooManyPending<>(4), List.of("unused"));

    assertThat(busy.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(busy.getBody())
        .isEqualTo(
            Map.of(
                "error",
                "Cannot verify db.t on east: 4 verifications are already pending;"
                    + " try again later"));
  }

  @Test
  void failedIsConflictWithThePrefixedRedactedMessage() {
    ResponseEntity<Object> conflict =
        answer(new OnDemandRuns.Failed<>("cannot read s3://key:hunter22@bucket/t"), List.of());

    assertThat(conflict.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
    assertThat(conflict.getBody())
        .isEqualTo(Map.of("error", "Cannot verify db.t on east: cannot read s3://****@bucket/t"));
  }

  @Test
  void failedCarriesTheProblemsWhenThereAreAny() {
    ResponseEntity<Object> conflict =
        answer(new OnDemandRuns.Failed<>("refused"), List.of("missing file a.parquet"));

    assertThat(conflict.getBody())
        .isEqualTo(
            Map.of(
                "error",
                "Cannot verify db.t on east: refused",
                "problems",
                List.of("missing file a.parquet")));
  }

  @Test
  void theMessagesNameTheTableAndTarget() {
    TableKey key = new TableKey("r", "east", "db/t", "s3://src/wh/db/t", "s3://dst/wh/db/t");

    assertThat(OnDemandAnswers.cannot("fail back", key))
        .isEqualTo("Cannot fail back db/t on east: ");
    assertThat(
            OnDemandAnswers.running("Fail-back", key, " into s3://src/wh/db/t", "see lastFailback")
                .apply(Duration.ofSeconds(30)))
        .isEqualTo(
            "Fail-back of db/t on east into s3://src/wh/db/t still running after PT30S; see"
                + " lastFailback");
  }
}
