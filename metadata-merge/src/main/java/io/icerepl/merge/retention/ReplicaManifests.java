package io.icerepl.merge.retention;

import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Reads the replica's manifest lists and manifests through a {@link ManifestSource}. Every failure
 * is thrown, never skipped: a manifest that cannot be read could name a file a retained snapshot
 * still needs, so reachability must not be decided without it.
 */
final class ReplicaManifests {
  private final ManifestSource source;

  ReplicaManifests(ManifestSource source) {
    this.source = Objects.requireNonNull(source, "source");
  }

  /** The manifest paths a manifest list names, in file order. */
  List<String> manifestsOf(String manifestList) {
    List<String> paths = new ArrayList<>();
    try (InputStream in = open(manifestList, "manifest list")) {
      for (ManifestListEntry entry : ManifestListRewriter.read(in, fileName(manifestList))) {
        paths.add(entry.manifestPath());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read manifest list " + manifestList + ": " + e.getMessage(), e);
    }
    return paths;
  }

  /**
   * Hands the live entries (ADDED, EXISTING) of one manifest to {@code action}, in file order. Only
   * one manifest's entries are held at a time, so memory follows the largest manifest, not the
   * table.
   */
  void forEachLiveFile(String manifest, Consumer<ManifestEntry> action) {
    List<ManifestEntry> files;
    try (InputStream in = open(manifest, "manifest")) {
      files = ManifestRewriter.readLiveFiles(in, fileName(manifest));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read manifest " + manifest + ": " + e.getMessage(), e);
    }
    // Entries are handed on only after the whole manifest read cleanly: a truncated manifest
    // throws before any of its entries is used.
    files.forEach(action);
  }

  /**
   * Whether a file an earlier, interrupted deletion may already have removed is gone. Files are
   * deleted contents first, then manifests, then manifest lists: a gone manifest's files are gone
   * too, so skipping it loses nothing.
   */
  boolean gone(String path) {
    try (InputStream in = source.open(path)) {
      return in == null;
    } catch (java.nio.file.NoSuchFileException | java.io.FileNotFoundException e) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  private InputStream open(String path, String noun) throws IOException {
    InputStream in = source.open(path);
    if (in == null) {
      throw new IOException("the source opened no stream for " + noun + " " + path);
    }
    return in;
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
