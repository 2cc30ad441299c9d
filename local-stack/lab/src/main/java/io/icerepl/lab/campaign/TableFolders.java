package io.icerepl.lab.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Copies of local table folders, so that a campaign can put tables back exactly as they were before
 * a command ran (files, lengths and contents; a folder that did not exist is removed).
 */
final class TableFolders {
  private TableFolders() {}

  /** Copies each folder that exists into {@code into}, by its name; returns {@code into}. */
  static Path save(List<Path> folders, Path into) {
    delete(into);
    try {
      Files.createDirectories(into);
      for (Path folder : folders) {
        if (Files.isDirectory(folder)) {
          copy(folder, into.resolve(folder.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return into;
  }

  /** Replaces each folder by its copy in {@code saved}, or removes it when it had none. */
  static void restore(List<Path> folders, Path saved) {
    for (Path folder : folders) {
      delete(folder);
      Path copy = saved.resolve(folder.getFileName().toString());
      if (Files.isDirectory(copy)) {
        copy(copy, folder);
      }
    }
  }

  private static void copy(Path from, Path to) {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : paths.toList()) {
        Path target = to.resolve(from.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path folder) {
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
