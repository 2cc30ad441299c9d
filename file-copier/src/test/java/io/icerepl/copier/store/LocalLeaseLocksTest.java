package io.icerepl.copier.store;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.merge.path.TableLocation;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Leases as local files under a folder of their own, beside the tables. */
class LocalLeaseLocksTest extends LeaseLocksTest {
  private final LocalObjectStore store = new LocalObjectStore();
  @TempDir Path dir;

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Override
  protected String table(String name) {
    return dir.resolve("warehouse").resolve("db").resolve(name).toUri().toString();
  }

  @Override
  protected LeaseLocks.LeasePath leasePath() {
    return (prefix, location) ->
        dir.resolve(ReplicaLayout.leaseKey(prefix, TableLocation.of(location).canonical()))
            .toUri()
            .toString();
  }
}
