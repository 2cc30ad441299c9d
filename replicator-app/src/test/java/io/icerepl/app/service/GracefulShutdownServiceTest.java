package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.publish.ReplicaLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A service stopped while it copies a table's files: it abandons the run within its shutdown
 * timeout, leaves the replica as it was, and releases the table's lease, so that a second instance
 * replicates the table at once, although the lease's TTL is far longer than the test waits.
 */
class GracefulShutdownServiceTest {
  private static final String ORDERS = "/api/replications/a/ns/orders";
  private static final String LONG_TTL = "PT10M";

  private final ServiceOnS3 fixture = new ServiceOnS3();
  private final List<RunningService> services = new ArrayList<>();

  @AfterEach
  void stop() {
    services.forEach(RunningService::close);
    fixture.close();
  }

  @Test
  void stoppingMidCopyReleasesTheLeaseAndAnotherInstanceTakesTheTableAtOnce() throws Exception {
    Table orders = fixture.warehouse.createSample("ns", "orders");
    ServiceOnS3.append(orders, "a", 3);
    ServiceOnS3.append(orders, "b", 2);
    HeldCopies held = new HeldCopies();
    RunningService first =
        start(
            Map.of(
                "replicator.shutdown-timeout", "PT1S", "replicator.s3.target.lock-ttl", LONG_TTL),
            Map.of("heldCopies", held));

    assertThat(held.copying.await(ServiceOnS3.PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .as("the first instance starts copying a data file of ns/orders")
        .isTrue();
    assertThat(leases()).as("the run holds the table's lease").hasSize(1);

    long started = System.nanoTime();
    first.close();
    Duration stopping = Duration.ofNanos(System.nanoTime() - started);
    services.remove(first);

    // held copies wait a minute each: only abandoning them ends the run this soon
    assertThat(stopping).isLessThan(Duration.ofSeconds(15));
    assertThat(held.interrupted.get()).as("the held copy was interrupted").isPositive();
    assertThat(leases()).as("the abandoned run released its lease").isEmpty();
    // the replicator's own state file may be there; no table metadata a reader would open is
    assertThat(fixture.objects("replica", "warehouse/ns/orders/metadata/").keySet())
        .as("the abandoned run left the replica as it was: nothing published")
        .noneMatch(key -> key.endsWith(".metadata.json") || key.endsWith("version-hint.text"));

    held.holding.set(false);
    fixture.service =
        start(Map.of("replicator.s3.target.lock-ttl", LONG_TTL), Map.of("heldCopies", held));
    fixture.awaitState(ORDERS, "IN_SYNC");

    try (S3FileIO io = fixture.io()) {
      Table replica = HintedReplica.open(io, "s3://replica/warehouse/ns/orders");
      assertThat(replica.currentSnapshot().snapshotId())
          .isEqualTo(orders.currentSnapshot().snapshotId());
      assertThat(rows(replica)).containsExactlyInAnyOrderElementsOf(rows(orders));
    }
  }

  private RunningService start(Map<String, String> extra, Map<String, Object> beans) {
    RunningService service = RunningService.start(fixture.properties(extra), beans);
    services.add(service);
    return service;
  }

  private List<String> leases() {
    try (S3Client client = fixture.s3.client()) {
      return client
          .listObjectsV2(b -> b.bucket("replica").prefix(ReplicaLayout.DEFAULT_LOCK_PREFIX + "/"))
          .contents()
          .stream()
          .map(o -> o.key())
          .toList();
    }
  }

  private static List<String> rows(Table table) throws java.io.IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.getField("id") + "/" + r.getField("category")));
    }
    return rows;
  }

  /**
   * Holds every write of a replica data file for a minute, as a slow copy would, while {@code
   * holding}: the wait ends early only when its thread is interrupted.
   */
  static final class HeldCopies implements ExecutionInterceptor {
    final AtomicBoolean holding = new AtomicBoolean(true);
    final CountDownLatch copying = new CountDownLatch(1);
    final AtomicInteger interrupted = new AtomicInteger();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      String written =
          context.request() instanceof PutObjectRequest put
              ? put.bucket() + "/" + put.key()
              : context.request() instanceof CopyObjectRequest copy
                  ? copy.destinationBucket() + "/" + copy.destinationKey()
                  : context.request() instanceof CreateMultipartUploadRequest upload
                      ? upload.bucket() + "/" + upload.key()
                      : "";
      if (!written.startsWith("replica/warehouse/ns/orders/data/") || !holding.get()) {
        return;
      }
      copying.countDown();
      try {
        Thread.sleep(Duration.ofMinutes(1).toMillis());
      } catch (InterruptedException e) {
        interrupted.incrementAndGet();
        Thread.currentThread().interrupt();
        throw AbortedException.create("copy interrupted");
      }
    }
  }
}
