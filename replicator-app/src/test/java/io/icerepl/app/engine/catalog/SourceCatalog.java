package io.icerepl.app.engine.catalog;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.Closeable;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A real catalog source tables are written through with the Iceberg library, and the properties
 * {@code replicate --source-catalog} names it by.
 */
final class SourceCatalog implements AutoCloseable {

  /** The catalog kinds a source can be served by here. */
  enum Kind {
    /** Iceberg's REST catalog server, backed by a JDBC catalog on SQLite. */
    REST,
    /** A JDBC catalog on a SQLite file. */
    JDBC
  }

  private final Catalog catalog;
  private final String properties;
  private final AutoCloseable server;

  private SourceCatalog(Catalog catalog, String properties, AutoCloseable server) {
    this.catalog = catalog;
    this.properties = properties;
    this.server = server;
  }

  /** A catalog of {@code kind} with its warehouse and database under {@code dir}. */
  static SourceCatalog open(Kind kind, Path dir) throws Exception {
    String warehouse = dir.resolve("warehouse").toUri().toString();
    String database = "jdbc:sqlite:" + dir.resolve(kind.name().toLowerCase() + ".db");
    return switch (kind) {
      case REST -> {
        LoopbackRestCatalog server = new LoopbackRestCatalog(warehouse, database);
        RESTCatalog client = new RESTCatalog();
        client.initialize("prod", Map.of("uri", server.uri()));
        yield new SourceCatalog(client, "name=prod,type=rest,uri=" + server.uri(), server);
      }
      case JDBC -> {
        JdbcCatalog client = new JdbcCatalog();
        client.initialize("src", Map.of("uri", database, "warehouse", warehouse));
        yield new SourceCatalog(
            client, "name=src,type=jdbc,uri=" + database + ",warehouse=" + warehouse, null);
      }
    };
  }

  /** The writers' client. */
  Catalog catalog() {
    return catalog;
  }

  /** The value of {@code --source-catalog}. */
  String properties() {
    return properties;
  }

  /** The catalog's name, as the command line prints it. */
  String name() {
    return properties.substring("name=".length(), properties.indexOf(','));
  }

  void createNamespace(String namespace) {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of(namespace));
  }

  /** {@code replicate --source-catalog <this> --source-table <table> --target <target> <more>}. */
  Run replicate(String table, String target, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "replicate",
                "--source-catalog",
                properties,
                "--source-table",
                table,
                "--target",
                target));
    args.addAll(List.of(more));
    return Run.of(args.toArray(String[]::new));
  }

  /** One command line run: its exit code and what it printed. */
  record Run(int exit, String out, String err) {
    static Run of(String... args) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int exit =
          ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
      return new Run(exit, out.toString(), err.toString());
    }
  }

  @Override
  public void close() throws Exception {
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
    if (server != null) {
      server.close();
    }
  }
}
