package io.icerepl.app.engine.catalog;

import io.icerepl.app.logging.Redaction;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * PyIceberg's SQL catalog ({@code type=sql}) keeps its tables in the same {@code iceberg_tables}
 * rows as Iceberg's JDBC catalog, but names its database with a SQLAlchemy URL ({@code
 * sqlite:////abs/catalog.db}, {@code postgresql+psycopg2://user:password@host:5432/db}). So a user
 * can paste the catalog's PyIceberg properties as they are, this turns them into the JDBC
 * catalog's: {@code type=jdbc}, a JDBC URL, and the user and password as the driver's {@code
 * jdbc.user} and {@code jdbc.password}. Only the databases whose drivers ship are understood:
 * SQLite and PostgreSQL.
 */
final class SqlCatalogUri {
  static final String SQL_TYPE = "sql";

  private SqlCatalogUri() {}

  /**
   * The JDBC catalog's properties for a {@code type=sql} catalog; any other catalog's unchanged.
   *
   * @throws IllegalArgumentException naming the catalog when its URL is not one this understands
   */
  static Map<String, String> asJdbc(String catalog, Map<String, String> properties) {
    String type = properties.get("type");
    if (type == null || !type.equalsIgnoreCase(SQL_TYPE)) {
      return properties;
    }
    Map<String, String> jdbc = new LinkedHashMap<>(properties);
    jdbc.put("type", "jdbc");
    String uri = properties.get("uri");
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException(
          "Catalog " + catalog + " has type=sql but no uri (its SQLAlchemy database URL)");
    }
    if (uri.regionMatches(true, 0, "jdbc:", 0, 5)) {
      return jdbc;
    }
    int colon = uri.indexOf("://");
    if (colon <= 0) {
      throw unsupported(catalog, uri);
    }
    String dialect = uri.substring(0, colon).toLowerCase(Locale.ROOT);
    int plus = dialect.indexOf('+');
    String database = plus < 0 ? dialect : dialect.substring(0, plus);
    String rest = uri.substring(colon + "://".length());
    switch (database) {
      case "sqlite" -> jdbc.put("uri", "jdbc:sqlite:" + sqliteFile(rest));
      case "postgresql", "postgres" -> {
        jdbc.put("uri", "jdbc:postgresql://" + withoutUserInfo(rest, jdbc));
      }
      default -> throw unsupported(catalog, uri);
    }
    return jdbc;
  }

  /**
   * SQLAlchemy's SQLite URL has no host: {@code sqlite:///relative.db} or {@code
   * sqlite:////absolute.db}; {@code sqlite://} alone is an in-memory database.
   */
  private static String sqliteFile(String afterScheme) {
    if (afterScheme.isEmpty() || afterScheme.equals("/") || afterScheme.equals("/:memory:")) {
      return ":memory:";
    }
    return afterScheme.startsWith("/") ? afterScheme.substring(1) : afterScheme;
  }

  /**
   * {@code user:password@host:port/db?query} without its user info, which goes to the driver's
   * properties (decoded, as SQLAlchemy percent-encodes them) unless the user gave those too.
   */
  private static String withoutUserInfo(String authorityAndPath, Map<String, String> jdbc) {
    int slash = authorityAndPath.indexOf('/');
    String authority = slash < 0 ? authorityAndPath : authorityAndPath.substring(0, slash);
    int at = authority.lastIndexOf('@');
    if (at < 0) {
      return authorityAndPath;
    }
    String userInfo = authority.substring(0, at);
    int colon = userInfo.indexOf(':');
    String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
    jdbc.putIfAbsent("jdbc.user", decode(user));
    if (colon >= 0) {
      jdbc.putIfAbsent("jdbc.password", decode(userInfo.substring(colon + 1)));
    }
    return authorityAndPath.substring(at + 1);
  }

  private static String decode(String text) {
    return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static IllegalArgumentException unsupported(String catalog, String uri) {
    return new IllegalArgumentException(
        "Catalog "
            + catalog
            + " has type=sql with database URL "
            + Redaction.uri(uri)
            + "; understood: sqlite:///<file>, postgresql[+<driver>]://[user[:password]@]host[:port]/<db>,"
            + " or a jdbc: URL");
  }
}
