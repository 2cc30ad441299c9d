package io.icerepl.copier.s3;

import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.LeaseLocksTest;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedS3;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** Leases on the embedded S3, where they are as {@link S3ObjectStore#lock} places them. */
class S3LeaseLocksTest extends LeaseLocksTest {
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static EmbeddedS3 s3;
  private static S3TestClients clients;
  private String bucket;
  private S3ObjectStore store;

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    clients = new S3TestClients(s3, 64L * 1024 * 1024);
  }

  @AfterAll
  static void stopS3() {
    clients.close();
    s3.close();
  }

  @BeforeEach
  void newBucket() {
    bucket = "leases-" + BUCKETS.incrementAndGet();
    s3.createBucket(bucket);
    store =
        new S3ObjectStore(
            clients.client,
            clients.asyncClient,
            S3StoreSettings.defaults("test-owner"),
            S3Resilience.defaults());
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected String table(String name) {
    return "s3://" + bucket + "/warehouse/db/" + name;
  }

  @Override
  protected LeaseLocks.LeasePath leasePath() {
    return S3ObjectStore::leaseObject;
  }
}
