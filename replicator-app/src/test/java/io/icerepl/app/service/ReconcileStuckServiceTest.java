package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * A table whose replica stops answering listings (each hangs, deaf to interrupts, as a request
 * stuck on the network is) while reconciliation is the only way changes are found (no events):
 * reconciliation's check of that table hangs, and the other table's new commit is still found and
 * replicated; health turns DEGRADED naming the stuck table, and the service stops within its
 * bounded shutdown.
 */
class ReconcileStuckServiceTest {
  private static final String STUCK = "warehouse/ns/hung/";

  @Test
  void aReplicaWhoseListingsHangStallsNoOtherTablesReconciliation() throws Exception {
    HangingListings hanging = new HangingListings();
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      // "hung" sorts before "other": a pass checks it first
      Table hung = fixture.warehouse.createSample("ns", "hung");
      Table other = fixture.warehouse.createSample("ns", "other");
      ServiceOnS3.append(hung, "a", 2);
      ServiceOnS3.append(other, "a", 2);
      fixture.service =
          RunningService.start(
              fixture.properties(
                  Map.of(
                      "replicator.settle-time", "PT0.2S",
                      // every table listed at every pass: no event tells of the other's commit
                      "replicator.reconciliation-idle-interval", "PT1S",
                      "replicator.shutdown-timeout", "PT2S")),
              Map.of("hangingListings", hanging));
      RunningService service = fixture.service;
      S3FileIO io = fixture.io();
      try {
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .ignoreExceptions() // until both have a replica
            .untilAsserted(
                () -> {
                  assertThat(replicaHead(io, "hung"))
                      .isEqualTo(hung.currentSnapshot().snapshotId());
                  assertThat(replicaHead(io, "other"))
                      .isEqualTo(other.currentSnapshot().snapshotId());
                });

        hanging.hang.set(true);
        await().atMost(ServiceOnS3.PATIENCE).until(() -> hanging.hung.get() > 0);

        ServiceOnS3.append(other, "b", 3);
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .untilAsserted(
                () ->
                    assertThat(replicaHead(io, "other"))
                        .isEqualTo(other.currentSnapshot().snapshotId()));

        await()
            .atMost(ServiceOnS3.PATIENCE)
            .untilAsserted(
                () -> {
                  JsonNode health = service.http.get("/actuator/health").json();
                  assertThat(health.path("status").asText()).isEqualTo("DEGRADED");
                  assertThat(
                          health
                              .path("components")
                              .path("reconciliation")
                              .path("details")
                              .path("stuck")
                              .path("a/ns/hung")
                              .asText())
                      .contains("past its deadline");
                });
        // a stuck check is not started again: one check's listing hangs, however many passes ran
        // (a replication run of the table in its lane may hang on its own listing beside it)
        assertThat(hanging.threads)
            .as("the threads whose listings hang")
            .filteredOn(name -> name.startsWith("replicator-check-"))
            .hasSize(1);
      } finally {
        // bounded although the listing still hangs: it is released only afterwards
        assertTimeoutPreemptively(Duration.ofSeconds(60), service::close);
        fixture.service = null;
        hanging.release.countDown();
      }
    }
  }

  private static long replicaHead(S3FileIO io, String table) {
    return HintedReplica.open(io, "s3://replica/warehouse/ns/" + table)
        .currentSnapshot()
        .snapshotId();
  }

  /** Every listing under the stuck replica hangs once {@link #hang} is set, until released. */
  static final class HangingListings implements ExecutionInterceptor {
    final AtomicBoolean hang = new AtomicBoolean();
    final AtomicInteger hung = new AtomicInteger();
    final Queue<String> threads = new ConcurrentLinkedQueue<>();
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (!hang.get()
          || !(context.request() instanceof ListObjectsV2Request list)
          || !(list.bucket() + "/" + list.prefix()).startsWith("replica/" + STUCK)) {
        return;
      }
      threads.add(Thread.currentThread().getName());
      hung.incrementAndGet();
      boolean interrupted = false;
      while (release.getCount() > 0) {
        try {
          release.await();
        } catch (InterruptedException e) {
          interrupted = true; // deaf to it, as a request stuck on the network is
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
