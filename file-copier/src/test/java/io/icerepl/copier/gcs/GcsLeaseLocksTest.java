package io.icerepl.copier.gcs;

import io.icerepl.copier.store.LeaseLocks;
import io.icerepl.copier.store.LeaseLocksTest;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.PreconditionEnforcingStorage;
import org.junit.jupiter.api.BeforeEach;

/**
 * Leases on GCS, at the lease objects the store takes its locks at, conditional on generations (the
 * in-process fake, its preconditions enforced as GCS enforces them).
 */
class GcsLeaseLocksTest extends LeaseLocksTest {
  private GcsObjectStore store;

  @BeforeEach
  void newStore() {
    // the fake has no buckets to create: every bucket name holds objects
    store = new GcsObjectStore(PreconditionEnforcingStorage.inProcess());
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected String table(String name) {
    return "gs://lake/warehouse/db/" + name;
  }

  @Override
  protected LeaseLocks.LeasePath leasePath() {
    return GcsObjectStore::leaseObject;
  }
}
