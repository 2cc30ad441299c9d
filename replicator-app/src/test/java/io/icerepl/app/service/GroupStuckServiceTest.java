package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;

/**
 * A replication group whose one table's replica stops answering reads of its objects (each hangs,
 * deaf to interrupts, as a read stuck on the network is): the group's tagging round and the reads
 * of its cut hang, and nothing else does. The other table goes on replicating, reconciliation goes
 * on (it finds a table created after the hang), {@code /api/groups/<g>} answers at its deadline,
 * health turns DEGRADED naming the stuck group, and the service stops within its bounded shutdown.
 */
class GroupStuckServiceTest {
  private static final String STUCK = "warehouse/ns/grouped/";

  @Test
  void aGroupWhoseReplicaHangsStallsNeitherOtherTablesNorReconciliation() throws Exception {
    HangingReads hanging = new HangingReads();
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      Table grouped = fixture.warehouse.createSample("ns", "grouped");
      Table other = fixture.warehouse.createSample("ns", "other");
      ServiceOnS3.append(grouped, "a", 2);
      ServiceOnS3.append(other, "a", 2);
      fixture.service =
          RunningService.start(
              fixture.properties(
                  Map.of(
                      "replicator.settle-time", "PT0.2S",
                      // every table listed at every pass: no event tells of the other's commit
                      "replicator.reconciliation-idle-interval", "PT1S",
                      "replicator.shutdown-timeout", "PT2S",
                      "replicator.groups[0].name", "g",
                      "replicator.groups[0].target", "a",
                      "replicator.groups[0].tables[0]", "ns/grouped",
                      "replicator.groups[0].clock-skew", "PT0.1S",
                      "replicator.groups[0].tag-interval", "PT0.3S")),
              Map.of("hangingReads", hanging));
      RunningService service = fixture.service;
      try {
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .until(() -> !service.http.get("/api/groups/g").json().path("cutTag").isNull());

        hanging.hang.set(true);
        await().atMost(ServiceOnS3.PATIENCE).until(() -> hanging.hung.get() > 0);

        // the other table replicates a new commit; reconciliation finds a table created now
        ServiceOnS3.append(other, "b", 3);
        Table late = fixture.warehouse.createSample("ns", "late");
        ServiceOnS3.append(late, "a", 1);
        S3FileIO io = fixture.io();
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .ignoreExceptions() // until the late table has a replica
            .untilAsserted(
                () -> {
                  assertThat(replicaHead(io, "other"))
                      .isEqualTo(other.currentSnapshot().snapshotId());
                  assertThat(replicaHead(io, "late"))
                      .isEqualTo(late.currentSnapshot().snapshotId());
                });

        JsonNode group = service.http.get("/api/groups/g").json();
        assertThat(group.path("reason").asText()).contains("were not read within");
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .untilAsserted(
                () -> {
                  JsonNode health = service.http.get("/actuator/health").json();
                  assertThat(health.path("status").asText()).isEqualTo("DEGRADED");
                  assertThat(
                          health
                              .path("components")
                              .path("groups")
                              .path("details")
                              .path("stuck")
                              .path("g")
                              .asText())
                      .contains("past its deadline");
                });
      } finally {
        // bounded although the group's reads still hang: they are released only afterwards
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

  /**
   * Every object read of the stuck replica hangs once {@link #hang} is set, until released. Its
   * listings answer: reconciliation lists each replica's metadata folder on its own thread.
   */
  static final class HangingReads implements ExecutionInterceptor {
    final AtomicBoolean hang = new AtomicBoolean();
    final AtomicInteger hung = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      String read =
          context.request() instanceof GetObjectRequest get
              ? get.bucket() + "/" + get.key()
              : context.request() instanceof HeadObjectRequest head
                  ? head.bucket() + "/" + head.key()
                  : "";
      if (!hang.get() || !read.startsWith("replica/" + STUCK)) {
        return;
      }
      hung.incrementAndGet();
      boolean interrupted = false;
      while (release.getCount() > 0) {
        try {
          release.await();
        } catch (InterruptedException e) {
          interrupted = true; // deaf to it, as a read stuck on the network is
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
