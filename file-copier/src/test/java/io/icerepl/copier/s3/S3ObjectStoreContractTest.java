package io.icerepl.copier.s3;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStoreContract;
import io.icerepl.localstack.EmbeddedS3;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The object-store contract against the embedded S3: the server enforces If-Match. */
class S3ObjectStoreContractTest extends ObjectStoreContract {
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static EmbeddedS3 s3;
  private static S3TestClients clients;
  private String bucket;
  private S3ObjectStore store;

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    clients = new S3TestClients(s3, 5 * 1024 * 1024);
  }

  @AfterAll
  static void stopS3() {
    clients.close();
    s3.close();
  }

  @BeforeEach
  void newBucket() {
    bucket = "conditional-" + BUCKETS.incrementAndGet();
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

  /**
   * The embedded S3 (s3proxy) answers a DeleteObject with {@code If-Match} on a missing key with
   * 204, as the S3 API reference says S3 does ("if the ETag matches or if the object doesn't
   * exist"), so a gone object reads as deleted. A stale ETag on an object that is there gets 412.
   */
  @Override
  protected boolean reportsADeleteOfAMissingObject() {
    return false;
  }

  @Override
  protected String path(String name) {
    return "s3://" + bucket + "/warehouse/ns/t/" + name;
  }
}
