package io.icerepl.app.engine.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The AWS Glue Data Catalog's API on loopback, enough of it for Iceberg's Glue catalog and the
 * replicator's Glue registrations: databases, and tables with Glue's optimistic lock — each table
 * has a {@code VersionId}, bumped by every update, and an {@code UpdateTable} naming another one
 * fails with {@code ConcurrentModificationException}, as Glue answers. It speaks Glue's JSON 1.1
 * protocol (one POST per call, the operation in {@code X-Amz-Target}), so the clients under test
 * are the real SDK and Iceberg clients, pointed here by {@code glue.endpoint}.
 */
final class LoopbackGlue implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final Map<String, Map<String, ObjectNode>> databases = new HashMap<>();

  /** Every operation called, in order: {@code GetTable}, {@code UpdateTable}, … */
  final List<String> operations = new CopyOnWriteArrayList<>();

  /** Every error answered, as {@code <operation> <error type>}, in order. */
  final List<String> errors = new CopyOnWriteArrayList<>();

  /** Every {@code UpdateTable} request body, in order. */
  final List<JsonNode> updates = new CopyOnWriteArrayList<>();

  private final AtomicReference<Runnable> beforeNextUpdate = new AtomicReference<>();

  LoopbackGlue() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    // a hook may call back into the server while a request waits
    server.setExecutor(executor);
    server.start();
  }

  /** The value of {@code glue.endpoint}. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * Runs {@code commit} when the next {@code UpdateTable} arrives, before it is applied: another
   * writer's commit lands between that request's read of the table and its update.
   */
  void beforeNextUpdate(Runnable commit) {
    beforeNextUpdate.set(commit);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
      String operation = target == null ? "" : target.substring(target.indexOf('.') + 1);
      JsonNode request = JSON.readTree(exchange.getRequestBody());
      operations.add(operation);
      if (operation.equals("UpdateTable")) {
        updates.add(request);
        Runnable hook = beforeNextUpdate.getAndSet(null);
        if (hook != null) {
          hook.run();
        }
      }
      Answer answer;
      synchronized (databases) {
        answer = answer(operation, request);
      }
      byte[] body = JSON.writeValueAsBytes(answer.body());
      exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
      if (answer.error() != null) {
        errors.add(operation + " " + answer.error());
        exchange.getResponseHeaders().add("x-amzn-ErrorType", answer.error());
      }
      exchange.sendResponseHeaders(answer.status(), body.length);
      exchange.getResponseBody().write(body);
    }
  }

  private record Answer(int status, String error, JsonNode body) {}

  private Answer answer(String operation, JsonNode request) {
    return switch (operation) {
      case "GetDatabase" -> {
        String name = request.path("Name").asText();
        yield databases.containsKey(name)
            ? ok(JSON.createObjectNode().set("Database", JSON.createObjectNode().put("Name", name)))
            : error("EntityNotFoundException", "Database " + name + " not found.");
      }
      case "CreateDatabase" -> {
        String name = request.path("DatabaseInput").path("Name").asText();
        if (databases.putIfAbsent(name, new HashMap<>()) != null) {
          yield error("AlreadyExistsException", "Database already exists.");
        }
        yield ok(JSON.createObjectNode());
      }
      case "GetTable" -> {
        ObjectNode table =
            table(request.path("DatabaseName").asText(), request.path("Name").asText());
        yield table == null
            ? error(
                "EntityNotFoundException", "Table " + request.path("Name").asText() + " not found.")
            : ok(JSON.createObjectNode().set("Table", table.deepCopy()));
      }
      case "CreateTable" -> {
        String database = request.path("DatabaseName").asText();
        JsonNode input = request.path("TableInput");
        Map<String, ObjectNode> tables = databases.get(database);
        if (tables == null) {
          yield error("EntityNotFoundException", "Database " + database + " not found.");
        }
        String name = input.path("Name").asText();
        if (tables.containsKey(name)) {
          yield error("AlreadyExistsException", "Table already exists.");
        }
        tables.put(name, stored(database, input, 1));
        yield ok(JSON.createObjectNode());
      }
      case "UpdateTable" -> {
        String database = request.path("DatabaseName").asText();
        JsonNode input = request.path("TableInput");
        ObjectNode table = table(database, input.path("Name").asText());
        if (table == null) {
          yield error(
              "EntityNotFoundException", "Table " + input.path("Name").asText() + " not found.");
        }
        String current = table.path("VersionId").asText();
        if (request.hasNonNull("VersionId")
            && !request.path("VersionId").asText().equals(current)) {
          yield error(
              "ConcurrentModificationException",
              "Update table failed due to concurrent modifications.");
        }
        databases
            .get(database)
            .put(input.path("Name").asText(), stored(database, input, Long.parseLong(current) + 1));
        yield ok(JSON.createObjectNode());
      }
      case "DeleteTable" -> {
        Map<String, ObjectNode> tables = databases.get(request.path("DatabaseName").asText());
        yield tables != null && tables.remove(request.path("Name").asText()) != null
            ? ok(JSON.createObjectNode())
            : error("EntityNotFoundException", "Table not found.");
      }
      default -> error("UnknownOperationException", "LoopbackGlue does not serve " + operation);
    };
  }

  private ObjectNode table(String database, String name) {
    Map<String, ObjectNode> tables = databases.get(database);
    return tables == null ? null : tables.get(name);
  }

  /** A table as GetTable returns it: its input, its database and its version. */
  private static ObjectNode stored(String database, JsonNode input, long version) {
    ObjectNode table = input.deepCopy();
    table.put("DatabaseName", database);
    table.put("VersionId", Long.toString(version));
    return table;
  }

  private static Answer ok(JsonNode body) {
    return new Answer(200, null, body);
  }

  private static Answer error(String type, String message) {
    return new Answer(
        400, type, JSON.createObjectNode().put("__type", type).put("message", message));
  }

  /** The table's parameters as Glue holds them. */
  Map<String, String> parameters(String database, String name) {
    synchronized (databases) {
      ObjectNode table = table(database, name);
      Map<String, String> parameters = new HashMap<>();
      if (table != null) {
        table
            .path("Parameters")
            .fields()
            .forEachRemaining(e -> parameters.put(e.getKey(), e.getValue().asText()));
      }
      return parameters;
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
