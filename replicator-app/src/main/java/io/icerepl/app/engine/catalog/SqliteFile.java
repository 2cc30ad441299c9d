package io.icerepl.app.engine.catalog;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The database file a JDBC catalog's {@code jdbc:sqlite:} URI names. SQLite creates a missing file
 * on connect, so a mistyped source catalog path would otherwise leave an empty database behind and
 * fail later with "no such table"; {@link CatalogClients} looks the file up first.
 */
final class SqliteFile {
  private static final String PREFIX = "jdbc:sqlite:";

  private SqliteFile() {}

  /**
   * The file of a catalog whose {@code uri} is a SQLite file, resolved against the working folder;
   * empty for any other catalog and for in-memory databases ({@code :memory:}, {@code
   * file::memory:}, {@code mode=memory}) and class-path resources, which have no file to miss.
   */
  static Optional<Path> of(CatalogSpec spec) {
    String uri = spec.properties().get("uri");
    if (uri == null || !uri.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return Optional.empty();
    }
    String name = uri.substring(PREFIX.length());
    int query = name.indexOf('?');
    String parameters = query < 0 ? "" : name.substring(query + 1).toLowerCase(Locale.ROOT);
    name = query < 0 ? name : name.substring(0, query);
    if (name.regionMatches(true, 0, "file:", 0, "file:".length())) {
      name = name.substring("file:".length());
      // file:///abs and file://localhost/abs are URIs; file:rel and file:/abs are plain paths
      if (name.startsWith("//")) {
        int slash = name.indexOf('/', 2);
        name = slash < 0 ? "" : name.substring(slash);
      }
    }
    if (name.isEmpty()
        || name.equals(":memory:")
        || name.startsWith(":resource:")
        || parameters.contains("mode=memory")) {
      return Optional.empty();
    }
    return Optional.of(Path.of(name).toAbsolutePath().normalize());
  }
}
