package io.icerepl.infra.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * The image's Java runtime: the building JDK cut down by {@code jlink} to what the service uses.
 */
final class JavaRuntime {
  /**
   * The service's modules. Named rather than found by {@code jdeps}, which misses what is loaded by
   * name: {@code java.desktop} for Spring's {@code java.beans}, {@code jdk.security.auth} for
   * Hadoop's login module, {@code jdk.crypto.ec} for TLS to AWS, {@code jdk.naming.dns}, {@code
   * jdk.zipfs}. ImageTarballTest starts the service inside the image to check the list.
   */
  static final List<String> MODULES =
      List.of(
          "java.base",
          "java.compiler",
          "java.desktop",
          "java.instrument",
          "java.logging",
          "java.management",
          "java.naming",
          "java.net.http",
          "java.scripting",
          "java.security.jgss",
          "java.security.sasl",
          "java.sql",
          "java.xml",
          "java.xml.crypto",
          "jdk.charsets",
          "jdk.crypto.ec",
          "jdk.localedata",
          "jdk.management",
          "jdk.naming.dns",
          "jdk.net",
          "jdk.security.auth",
          "jdk.unsupported",
          "jdk.zipfs");

  /**
   * The native parts of {@code java.desktop} a headless service never loads (X11 windows, fonts,
   * images, sound, the splash screen): they alone link the X11, font and image libraries, which
   * would otherwise come into the image with them. {@code java.beans} needs none of them.
   */
  static final List<String> HEADLESS_EXCLUDES =
      List.of(
          "libawt_xawt.so",
          "libjawt.so",
          "libsplashscreen.so",
          "libfontmanager.so",
          "libjavajpeg.so",
          "liblcms.so",
          "libjsound.so");

  private JavaRuntime() {}

  /**
   * The runtime in {@code output}, made unless the folder already holds one made by this JDK from
   * these modules (jlink takes about 10 s, a rebuild of the image then takes a few).
   */
  static Path jlink(Path output) throws IOException {
    String stamp =
        System.getProperty("java.home")
            + "\n"
            + System.getProperty("java.runtime.version")
            + "\n"
            + String.join(",", MODULES)
            + "\n"
            + String.join(",", HEADLESS_EXCLUDES)
            + "\n";
    Path stampFile = output.resolveSibling(output.getFileName() + ".stamp");
    if (Files.isRegularFile(output.resolve("release"))
        && Files.isRegularFile(stampFile)
        && Files.readString(stampFile).equals(stamp)) {
      return output;
    }
    delete(output);
    ToolProvider jlink =
        ToolProvider.findFirst("jlink")
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "Cannot build the image's runtime: this JVM ("
                            + System.getProperty("java.home")
                            + ") has no jlink; build with a JDK"));
    List<String> arguments = new ArrayList<>();
    arguments.addAll(List.of("--add-modules", String.join(",", MODULES)));
    arguments.addAll(List.of("--include-locales", "en"));
    arguments.addAll(
        List.of(
            "--exclude-files",
            String.join(",", HEADLESS_EXCLUDES.stream().map(file -> "**/" + file).toList())));
    // the JDK's own classes in a class-data-sharing archive: they are mapped, not loaded, at start
    arguments.add("--generate-cds-archive");
    arguments.addAll(
        List.of("--strip-debug", "--no-header-files", "--no-man-pages", "--compress", "2"));
    arguments.addAll(List.of("--output", output.toString()));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      int exit = jlink.run(out, out, arguments.toArray(String[]::new));
      if (exit != 0) {
        throw new IOException(
            "jlink " + String.join(" ", arguments) + " failed (" + exit + "): " + log);
      }
    }
    Files.writeString(stampFile, stamp);
    return output;
  }

  static void delete(Path folder) throws IOException {
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path each : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(each);
      }
    }
  }
}
