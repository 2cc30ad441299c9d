package io.icerepl.infra.image;

import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The image's first layer, what an empty base lacks for a JVM: the runtime under {@code /opt/java},
 * the C libraries its binaries link (the C library, the dynamic loader, zlib, the C++ runtime of
 * the JVM) at the paths the loader looks in, an {@code /etc/passwd} naming the service's user, and
 * a {@code /tmp} anyone may write and only a file's owner may remove from (mode 1777: the web
 * server's work folder).
 */
final class RuntimeLayer {
  /** {@code libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x…)} and the loader's own line. */
  private static final Pattern LDD_LINE = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");

  private RuntimeLayer() {}

  static FileEntriesLayer of(Path runtime, Path system, AbsoluteUnixPath javaHome)
      throws IOException, InterruptedException {
    FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("runtime");
    try (Stream<Path> each = Files.walk(runtime)) {
      for (Path file : each.filter(Files::isRegularFile).sorted().toList()) {
        layer.addEntry(
            file,
            javaHome.resolve(runtime.relativize(file).toString()),
            FilePermissions.fromPosixFilePermissions(Files.getPosixFilePermissions(file)));
      }
    }
    for (String library : linkedLibraries(runtime)) {
      Path host = Path.of(library);
      layer.addEntry(
          host,
          AbsoluteUnixPath.get(library),
          FilePermissions.fromPosixFilePermissions(Files.getPosixFilePermissions(host)));
    }
    JavaRuntime.delete(system);
    Files.createDirectories(system.resolve("tmp"));
    Path passwd = Files.writeString(system.resolve("passwd"), passwd());
    Path group = Files.writeString(system.resolve("group"), group());
    layer.addEntry(
        passwd, AbsoluteUnixPath.get("/etc/passwd"), FilePermissions.fromOctalString("644"));
    layer.addEntry(
        group, AbsoluteUnixPath.get("/etc/group"), FilePermissions.fromOctalString("644"));
    layer.addEntry(system.resolve("tmp"), AbsoluteUnixPath.get("/tmp"), withStickyBit(0777));
    return layer.build();
  }

  /**
   * Permissions with the sticky bit ({@code 01000}) over {@code bits}, as every shared {@code /tmp}
   * has it: anyone may create files there, only a file's owner may delete or rename it. Jib's
   * factories take the nine permission bits only, but the layer's tar entry takes whatever bits the
   * permissions hold (its mode is the entry type's bits or these), so the value is made through the
   * constructor they call; the image test reads the mode back from the tarball.
   */
  static FilePermissions withStickyBit(int bits) {
    try {
      Constructor<FilePermissions> constructor =
          FilePermissions.class.getDeclaredConstructor(int.class);
      constructor.setAccessible(true);
      return constructor.newInstance(01000 | bits);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "Cannot build the image's /tmp: this Jib makes no permissions with the sticky bit", e);
    }
  }

  static String passwd() {
    return "root:x:0:0:root:/root:/sbin/nologin\n"
        + "replicator:x:10001:10001:replicator:/app:/sbin/nologin\n";
  }

  static String group() {
    return "root:x:0:\nreplicator:x:10001:\n";
  }

  /**
   * The shared libraries outside the runtime that its binaries and libraries link, as the host's
   * loader resolves them ({@code ldd}): the image then runs the same binaries against the same
   * libraries as the build did.
   */
  static Set<String> linkedLibraries(Path runtime) throws IOException, InterruptedException {
    List<Path> binaries = new ArrayList<>();
    try (Stream<Path> each = Files.walk(runtime)) {
      each.filter(Files::isRegularFile)
          .filter(
              file ->
                  file.getFileName().toString().endsWith(".so")
                      || file.getParent().getFileName().toString().equals("bin"))
          .sorted()
          .forEach(binaries::add);
    }
    Set<String> libraries = new TreeSet<>();
    String root = runtime.toRealPath().toString();
    binaries.replaceAll(Path::toAbsolutePath);
    Set<String> inRuntime = new TreeSet<>();
    try (Stream<Path> each = Files.walk(runtime)) {
      each.filter(Files::isRegularFile)
          .forEach(file -> inRuntime.add(file.getFileName().toString()));
    }
    for (Path binary : binaries) {
      String output = ImageBuild.run(List.of("ldd", binary.toString()));
      for (String line : output.split("\n")) {
        if (line.contains("not found")) {
          // libjvm.so: in the runtime, found by the loader once the launcher has loaded it
          String name = line.trim().split("\\s+")[0];
          if (!inRuntime.contains(name)) {
            throw new IOException(
                binary + " links a library the build machine lacks: " + line.trim());
          }
          continue;
        }
        Matcher matcher = LDD_LINE.matcher(line);
        if (matcher.find()) {
          String library = matcher.group(1);
          if (!Path.of(library).toRealPath().startsWith(root) && !library.startsWith(root)) {
            libraries.add(library);
          }
        }
      }
    }
    return libraries;
  }
}
