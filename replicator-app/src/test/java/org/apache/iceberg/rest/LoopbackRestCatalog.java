package org.apache.iceberg.rest;

import io.icerepl.localstack.LoopbackPort;
import java.util.HashMap;
import java.util.Map;

/**
 * Iceberg's own REST catalog server, in-process on a free loopback port, fronting a JDBC catalog on
 * SQLite. It lives in Iceberg's package because the server's constructor is package-private.
 */
public final class LoopbackRestCatalog implements AutoCloseable {
  private final RESTCatalogServer server;
  private final int port;

  /**
   * @param warehouse the backend's warehouse location
   * @param jdbcUri the backend JDBC catalog's database
   */
  public LoopbackRestCatalog(String warehouse, String jdbcUri) throws Exception {
    this(warehouse, jdbcUri, Map.of());
  }

  /**
   * @param backend more properties of the backend catalog, e.g. the S3FileIO settings of a
   *     warehouse on an embedded S3
   */
  public LoopbackRestCatalog(String warehouse, String jdbcUri, Map<String, String> backend) {
    record Started(RESTCatalogServer server, int port) {}
    Started started =
        LoopbackPort.start(
            "Iceberg's REST catalog server",
            port -> {
              Map<String, String> config = new HashMap<>(backend);
              config.put(RESTCatalogServer.REST_PORT, Integer.toString(port));
              config.put("warehouse", warehouse);
              config.put("uri", jdbcUri);
              RESTCatalogServer server = new RESTCatalogServer(config);
              try {
                server.start(false);
              } catch (Exception e) {
                try {
                  server.stop();
                } catch (Exception stopping) {
                  e.addSuppressed(stopping);
                }
                throw e;
              }
              return new Started(server, port);
            });
    this.server = started.server();
    this.port = started.port();
  }

  public String uri() {
    return "http://127.0.0.1:" + port;
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
