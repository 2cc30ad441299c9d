package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.catalog.SourceCatalog.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replicate --source-catalog} confines the catalog's table to the catalog's warehouse: a row
 * naming a table elsewhere is refused and nothing is written, unless {@code --allow-source-prefix}
 * widens it.
 */
class CatalogConfinementCommandTest {
  @TempDir Path dir;

  @Test
  void aCatalogRowNamingATableOutsideTheWarehouseIsRefusedUnlessAllowed() throws Exception {
    SourceTable elsewhere = SourceTable.create(dir.resolve("elsewhere/t"), 2);
    elsewhere.append("e", 2);
    String metadata = ((BaseTable) elsewhere.table).operations().current().metadataFileLocation();
    try (SourceCatalog catalog = SourceCatalog.open(SourceCatalog.Kind.JDBC, dir)) {
      catalog.createNamespace("db");
      catalog.catalog().registerTable(TableIdentifier.of("db", "intruder"), metadata);
      String target = dir.resolve("replica").toString();

      Run refused = catalog.replicate("db.intruder", target, "--settle-time", "0s");

      assertThat(refused.exit()).as(refused.out()).isNotZero();
      assertThat(refused.err())
          .contains("the catalog reports its location " + elsewhere.location)
          .contains("outside the catalog's warehouse [" + dir.resolve("warehouse").toUri() + "]")
          .contains("nothing was copied");
      assertThat(Files.exists(dir.resolve("replica"))).isFalse();

      Run allowed =
          catalog.replicate(
              "db.intruder",
              target,
              "--settle-time",
              "0s",
              "--allow-source-prefix",
              dir.resolve("elsewhere").toUri().toString());

      assertThat(allowed.exit()).as(allowed.err()).isZero();
      Table replica = SourceTable.TABLES.load(target);
      for (Snapshot snapshot : elsewhere.table.snapshots()) {
        assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(elsewhere.table, snapshot.snapshotId()));
      }
    }
  }
}
