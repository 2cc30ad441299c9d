package org.apache.iceberg.rest;

import java.io.IOException;
import java.net.ServerSocket;
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
  public LoopbackRestCatalog(String warehouse, String jdbcUri, Map<String, String> backend)
      throws Exception {
    this.port = freePort();
    Map<String, String> config = new HashMap<>(backend);
    config.put(RESTCatalogServer.REST_PORT, Integer.toString(port));
    config.put("warehouse", warehouse);
    config.put("uri", jdbcUri);
    this.server = new RESTCatalogServer(config);
    server.start(false);
  }

  public String uri() {
    return "http://127.0.0.1:" + port;
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
