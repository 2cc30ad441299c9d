package io.icerepl.app.engine.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * A JDBC catalog's entry is a row of {@code iceberg_tables}. Its own commit writes a new metadata
 * file, so the entry is moved to the replica's own file with the compare-and-swap {@code
 * JdbcTableOperations} commits with: an {@code UPDATE} whose {@code WHERE} names the file the row
 * was read with.
 */
final class JdbcRegistrar extends EntryRegistrar {
  private static final String SWAP =
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?"
          + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
          + " AND metadata_location = ?";

  /** The prefix of the JDBC driver's properties among the catalog's ({@code jdbc.user}, …). */
  private static final String JDBC_PREFIX = "jdbc.";

  JdbcRegistrar(
      CatalogSpec spec, Catalog catalog, TableIdentifier identifier, ReplicaVersions versions) {
    super(spec, catalog, identifier, versions);
  }

  @Override
  Optional<Registration> attempt(String replicaLocation, String metadataFile) {
    return moveTo(metadataFile, entry -> isBehind(replicaLocation, metadataFile, entry));
  }

  @Override
  Optional<Registration> promoteAttempt(String replicaLocation, String promotedFile) {
    return moveTo(promotedFile, entry -> isBeforePromotion(replicaLocation, promotedFile, entry));
  }

  /** Registers {@code file}, or swaps the row to it when {@code behind} the entry's file. */
  private Optional<Registration> moveTo(String file, Predicate<String> behind) {
    Optional<String> entryFile = entryFile();
    if (entryFile.isEmpty()) {
      return registerNew(file);
    }
    if (!behind.test(entryFile.get())) {
      return Optional.of(Registration.UNCHANGED);
    }
    return swap(entryFile.get(), file) ? Optional.of(Registration.ADVANCED) : Optional.empty();
  }

  /** {@inheritDoc} Exactly as its row holds it: the swap compares that text. */
  @Override
  public Optional<String> entryFile() {
    Table table;
    try {
      table = catalog.loadTable(identifier);
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
    TableOperations operations = ((HasTableOperations) table).operations();
    return Optional.of(
        operations instanceof BaseMetastoreTableOperations metastore
            ? metastore.currentMetadataLocation()
            : operations.current().metadataFileLocation());
  }

  /** Points the row at {@code metadataFile} if it still names {@code expected}. */
  private boolean swap(String expected, String metadataFile) {
    try (Connection connection = connect();
        PreparedStatement update = connection.prepareStatement(SWAP)) {
      return bind(update, expected, metadataFile).executeUpdate() == 1;
    } catch (SQLException e) {
      throw new CatalogException(cannot(metadataFile) + ": " + e.getMessage(), e);
    }
  }

  /** A row's move planned to be made with others of the same catalog in one transaction. */
  record Swap(JdbcRegistrar registrar, String expected, String metadataFile) {}

  /**
   * The move of the row to {@code currentFile}, the replica's current version, which carries the
   * group's new cut; empty when the row is already there or there is no row yet (the replica's own
   * run registers it).
   */
  Optional<Swap> planSwap(String replicaLocation, String currentFile) {
    Optional<String> entryFile = entryFile();
    if (entryFile.isEmpty() || !isBehind(replicaLocation, currentFile, entryFile.get())) {
      return Optional.empty();
    }
    return Optional.of(new Swap(this, entryFile.get(), currentFile));
  }

  /**
   * Makes every swap in one database transaction, each the compare-and-swap of {@link #SWAP}: when
   * any row no longer names the file it was read with, none is moved.
   *
   * @param swaps rows of one catalog
   * @return whether all were moved
   */
  static boolean swapAll(List<Swap> swaps) {
    JdbcRegistrar first = swaps.get(0).registrar();
    try (Connection connection = first.connect()) {
      connection.setAutoCommit(false);
      try (PreparedStatement update = connection.prepareStatement(SWAP)) {
        for (Swap swap : swaps) {
          if (swap.registrar().bind(update, swap.expected(), swap.metadataFile()).executeUpdate()
              != 1) {
            connection.rollback();
            return false;
          }
        }
        connection.commit();
        return true;
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new CatalogException(
          "Cannot move the entries "
              + swaps.stream().map(swap -> swap.registrar().identifier.toString()).toList()
              + " together in "
              + first.spec.describe()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(spec.properties().get("uri"), driverProperties());
  }

  private PreparedStatement bind(PreparedStatement update, String expected, String metadataFile)
      throws SQLException {
    update.setString(1, metadataFile);
    update.setString(2, expected);
    update.setString(3, catalog.name());
    update.setString(4, String.join(".", identifier.namespace().levels()));
    update.setString(5, identifier.name());
    update.setString(6, expected);
    return update;
  }

  private Properties driverProperties() {
    Properties properties = new Properties();
    for (Map.Entry<String, String> property : spec.properties().entrySet()) {
      if (property.getKey().startsWith(JDBC_PREFIX)) {
        properties.put(property.getKey().substring(JDBC_PREFIX.length()), property.getValue());
      }
    }
    return properties;
  }
}
