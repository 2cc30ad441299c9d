package io.icerepl.app.engine.catalog;

import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A real catalog in which a user commits to the entry right after the replicator's first read of
 * it, through the same catalog: the replicator's move then races a real concurrent commit.
 */
final class UserCommitsAfterRead implements Catalog {
  private final Catalog catalog;
  private final Runnable userCommit;
  private boolean committed;

  UserCommitsAfterRead(Catalog catalog, Runnable userCommit) {
    this.catalog = catalog;
    this.userCommit = userCommit;
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    Table table = catalog.loadTable(identifier);
    if (!committed) {
      committed = true;
      userCommit.run();
    }
    return table;
  }

  @Override
  public String name() {
    return catalog.name();
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return catalog.listTables(namespace);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return catalog.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    catalog.renameTable(from, to);
  }

  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    return catalog.registerTable(identifier, metadataFileLocation);
  }
}
