package io.icerepl.app.engine.catalog;

import io.icerepl.app.logging.Redaction;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * An Iceberg catalog as a user names it: Iceberg's own catalog properties ({@code type}, {@code
 * uri}, {@code warehouse}, {@code credential}, {@code token}, {@code rest.sigv4-enabled}, {@code
 * glue.id}, …) plus a name. JDBC catalogs key their rows by the name. PyIceberg's SQL catalog
 * ({@code type=sql} with a SQLAlchemy {@code uri}) is read as the JDBC catalog it is.
 *
 * @param name the catalog's name; {@value #DEFAULT_NAME} unless given
 * @param properties Iceberg catalog properties, without the name
 */
public record CatalogSpec(String name, Map<String, String> properties) {

  public static final String DEFAULT_NAME = "replicator";

  /** The catalog kinds the replicator reads heads from and registers replicas in. */
  public static final Set<String> TYPES = Set.of("rest", "glue", "jdbc");

  public CatalogSpec {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("A catalog needs a name");
    }
    // masked from every output from now on, including other libraries' messages quoting them
    Redaction.secretsOf(properties);
    properties = Map.copyOf(SqlCatalogUri.asJdbc(name, properties));
    Redaction.secretsOf(properties);
    String type = properties.get("type");
    if (type == null && !properties.containsKey("catalog-impl")) {
      throw new IllegalArgumentException(
          "Catalog "
              + name
              + " needs type=rest, type=glue, type=jdbc or type=sql (or catalog-impl=<class>)");
    }
    if (type != null && !TYPES.contains(type.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "Catalog " + name + " has type=" + type + "; supported: rest, glue, jdbc, sql");
    }
  }

  /**
   * Parses {@code name=prod,type=rest,uri=http://127.0.0.1:8181}: comma-separated {@code key=value}
   * pairs; a value may hold {@code =} but not a comma.
   *
   * @throws IllegalArgumentException naming the pair that is not {@code key=value}
   */
  public static CatalogSpec parse(String text) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "Cannot parse catalog property '" + pair.trim() + "': expected key=value");
      }
      properties.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    String name = properties.remove("name");
    return new CatalogSpec(name == null ? DEFAULT_NAME : name, properties);
  }

  /** The catalog's kind: {@code rest}, {@code glue}, {@code jdbc}, or its implementation class. */
  public String type() {
    String type = properties.get("type");
    return type != null ? type.toLowerCase(Locale.ROOT) : properties.get("catalog-impl");
  }

  /** The same catalog with these properties added where the user gave none. */
  public CatalogSpec withDefaults(Map<String, String> defaults) {
    Map<String, String> merged = new LinkedHashMap<>(defaults);
    merged.putAll(properties);
    return new CatalogSpec(name, merged);
  }

  /** How errors and logs name the catalog: its name, kind and URI, never a secret. */
  public String describe() {
    String uri = properties.get("uri");
    String where = uri != null ? uri : properties.getOrDefault("warehouse", "");
    return "catalog "
        + name
        + " ("
        + type()
        + (where.isEmpty() ? "" : " " + Redaction.uri(where))
        + ")";
  }

  /**
   * The properties with secret values masked and URIs without their passwords, for logs and the
   * status API.
   */
  public Map<String, String> redacted() {
    return properties.entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey,
                e -> redact(e.getKey(), e.getValue()),
                (a, b) -> a,
                LinkedHashMap::new));
  }

  @Override
  public String toString() {
    return describe();
  }

  private static String redact(String key, String value) {
    if (isSecret(key)) {
      return "****";
    }
    return key.toLowerCase(Locale.ROOT).endsWith("uri") ? Redaction.uri(value) : value;
  }

  private static boolean isSecret(String key) {
    return Redaction.isSecretName(key);
  }
}
