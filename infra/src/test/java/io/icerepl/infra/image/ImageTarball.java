package io.icerepl.infra.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The image tarball as {@code docker load} reads it: {@code manifest.json}, the config it names,
 * and each layer's gzipped tar, read here with a tar library rather than with the code that wrote
 * them.
 */
record ImageTarball(JsonNode manifest, JsonNode config, List<Layer> layers) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One layer: its entries by path (without the leading slash), and its uncompressed digest. */
  record Layer(Map<String, Entry> entries, String diffId) {}

  /** A file, folder or link of a layer, with its contents when it is a small file. */
  record Entry(String name, int mode, long uid, boolean directory, byte[] contents) {}

  static ImageTarball read(Path tarball) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (TarArchiveInputStream outer = new TarArchiveInputStream(Files.newInputStream(tarball))) {
      TarArchiveEntry entry;
      while ((entry = outer.getNextEntry()) != null) {
        files.put(entry.getName(), outer.readAllBytes());
      }
      JsonNode manifest = JSON.readTree(files.get("manifest.json"));
      JsonNode config = JSON.readTree(files.get(manifest.get(0).get("Config").asText()));
      List<Layer> layers = new ArrayList<>();
      for (JsonNode layer : manifest.get(0).get("Layers")) {
        layers.add(layer(files.get(layer.asText())));
      }
      return new ImageTarball(manifest, config, layers);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the image tarball " + tarball, e);
    }
  }

  private static Layer layer(byte[] gzipped) throws IOException {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    try (InputStream uncompressed =
            new DigestInputStream(
                new GZIPInputStream(new java.io.ByteArrayInputStream(gzipped)), sha256);
        TarArchiveInputStream tar = new TarArchiveInputStream(uncompressed)) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        String name = entry.getName().replaceFirst("^/", "").replaceFirst("/$", "");
        byte[] contents = entry.getSize() < (1 << 20) ? tar.readAllBytes() : new byte[0];
        entries.put(
            name,
            new Entry(name, entry.getMode(), entry.getLongUserId(), entry.isDirectory(), contents));
      }
      // the digest covers the whole uncompressed stream, its end-of-archive blocks included
      uncompressed.transferTo(java.io.OutputStream.nullOutputStream());
    }
    return new Layer(entries, "sha256:" + HexFormat.of().formatHex(sha256.digest()));
  }

  /** Unpacks every layer in order into {@code root}, as a container runtime does. */
  static void unpack(Path tarball, Path root) throws IOException {
    try (TarArchiveInputStream outer = new TarArchiveInputStream(Files.newInputStream(tarball))) {
      Map<String, byte[]> files = new LinkedHashMap<>();
      TarArchiveEntry entry;
      while ((entry = outer.getNextEntry()) != null) {
        files.put(entry.getName(), outer.readAllBytes());
      }
      JsonNode manifest = JSON.readTree(files.get("manifest.json"));
      for (JsonNode layer : manifest.get(0).get("Layers")) {
        try (TarArchiveInputStream tar =
            new TarArchiveInputStream(
                new GZIPInputStream(new java.io.ByteArrayInputStream(files.get(layer.asText()))))) {
          TarArchiveEntry file;
          while ((file = tar.getNextEntry()) != null) {
            Path target = root.resolve(file.getName().replaceFirst("^/", "")).normalize();
            if (!target.startsWith(root)) {
              throw new IOException("Layer entry outside the root: " + file.getName());
            }
            if (file.isDirectory()) {
              Files.createDirectories(target);
            } else {
              Files.createDirectories(target.getParent());
              Files.copy(tar, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Files.setPosixFilePermissions(
                target,
                java.nio.file.attribute.PosixFilePermissions.fromString(rwx(file.getMode())));
            // as a container runtime does: a class-data archive checks its jars' times
            Files.setLastModifiedTime(
                target, java.nio.file.attribute.FileTime.from(file.getModTime().toInstant()));
          }
        }
      }
    }
  }

  private static String rwx(int mode) {
    String letters = "rwxrwxrwx";
    StringBuilder out = new StringBuilder();
    for (int bit = 8; bit >= 0; bit--) {
      out.append((mode & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
    }
    return out.toString();
  }
}
