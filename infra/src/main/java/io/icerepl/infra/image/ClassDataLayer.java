package io.icerepl.infra.image;

import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FileEntry;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A class-data-sharing archive of the service's start, recorded inside the image's own file system
 * with the image's own JVM, as the Dockerfile's build step does: an archive is valid only for the
 * JVM, the class path and the jars' times and sizes it was recorded with, so it is recorded over
 * the layers as a container would see them (a mount namespace with {@code /proc} and {@code /dev},
 * and {@code chroot}, which need root). The service's context is built and the JVM exits before
 * anything starts: no port is bound, no endpoint called. Without root the image has no archive and
 * starts as fast as a plain jar.
 */
final class ClassDataLayer {
  static final String ARCHIVE = "serve.jsa";

  /** The training run: a rule and S3 and SQS endpoints that are never called. */
  static final List<String> TRAINING =
      List.of(
          "-XX:ArchiveClassesAtExit=/tmp/" + ARCHIVE,
          "-Xlog:cds=error",
          "-Dspring.context.exit=onRefresh",
          "-jar",
          "/app/replicator-app.jar",
          "serve",
          // as the service jar's training run (replicator-app's pom): a token, as a service runs
          // with, so the archive holds the API's checks
          "--quiet",
          "--replicator.api.token=class-data-training",
          "--spring.main.banner-mode=off",
          "--replicator.rules[0].name=training",
          "--replicator.rules[0].source=s3://source/warehouse",
          "--replicator.rules[0].targets[0].name=replica",
          "--replicator.rules[0].targets[0].prefix=s3://replica/warehouse",
          "--replicator.s3.source.endpoint=http://127.0.0.1:9",
          "--replicator.s3.target.endpoint=http://127.0.0.1:9",
          "--replicator.sqs.enabled=true",
          "--spring.cloud.aws.sqs.endpoint=http://127.0.0.1:9",
          "--spring.cloud.aws.region.static=us-east-1");

  private ClassDataLayer() {}

  /** Whether this machine can run the image's files as a container would: root, unshare, chroot. */
  static boolean canRunImages() {
    return "root".equals(System.getProperty("user.name"))
        && Files.isExecutable(Path.of("/usr/bin/unshare"))
        && Files.isExecutable(Path.of("/usr/sbin/chroot"));
  }

  /**
   * The archive's layer, recorded over {@code layers} laid out in {@code work}; empty (saying why)
   * where images cannot be run here.
   */
  static Optional<FileEntriesLayer> record(
      List<FileEntriesLayer> layers, Path work, AbsoluteUnixPath app, String user)
      throws IOException, InterruptedException {
    if (!canRunImages()) {
      System.out.println(
          "No class-data archive in the image: recording it runs the image's JVM over its layers,"
              + " which needs root, unshare and chroot");
      return Optional.empty();
    }
    Path root = work.resolve("rootfs");
    JavaRuntime.delete(root);
    for (FileEntriesLayer layer : layers) {
      for (FileEntry entry : layer.getEntries()) {
        lay(entry, root);
      }
    }
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    List<String> command = new ArrayList<>();
    command.add(ImageBuild.JAVA_HOME.resolve("bin/java").toString());
    command.addAll(TRAINING);
    command = inImage(root, user, command);
    ImageBuild.run(command);
    Path archive = work.resolve("class-data").resolve(ARCHIVE);
    Files.createDirectories(archive.getParent());
    Files.copy(root.resolve("tmp").resolve(ARCHIVE), archive, StandardCopyOption.REPLACE_EXISTING);
    JavaRuntime.delete(root);
    return Optional.of(
        FileEntriesLayer.builder()
            .setName("class-data")
            .addEntry(archive, app.resolve(ARCHIVE), FilePermissions.fromOctalString("644"))
            .build());
  }

  /**
   * {@code command} run as {@code user} inside the image's files laid out at {@code root}, as a
   * container would run it: a private mount namespace with {@code /proc} (the loader finds the
   * runtime's libraries through it) and {@code /dev} (a JVM seeds its random numbers from it), then
   * {@code chroot}. Needs root ({@link #canRunImages}).
   */
  static List<String> inImage(Path root, String user, List<String> command) {
    List<String> out =
        new ArrayList<>(
            List.of(
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "--fork",
                "--kill-child",
                "sh",
                "-c",
                "mount -t proc proc \"$0\"/proc && mount --rbind /dev \"$0\"/dev"
                    + " && exec chroot --userspec="
                    + user
                    + " \"$0\" \"$@\"",
                root.toString()));
    out.addAll(command);
    return out;
  }

  /** One entry where the image puts it, with its permissions and time as the image holds them. */
  private static void lay(FileEntry entry, Path root) throws IOException {
    Path target = root.resolve(entry.getExtractionPath().toString().substring(1));
    if (Files.isDirectory(entry.getSourceFile())) {
      Files.createDirectories(target);
    } else {
      Files.createDirectories(target.getParent());
      Files.copy(entry.getSourceFile(), target, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.setPosixFilePermissions(target, permissions(entry.getPermissions()));
    Files.setLastModifiedTime(target, FileTime.from(entry.getModificationTime()));
  }

  private static Set<PosixFilePermission> permissions(FilePermissions permissions) {
    int bits = permissions.getPermissionBits();
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = {
      PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_EXECUTE
    };
    for (int i = 0; i < order.length; i++) {
      if ((bits & (1 << (8 - i))) != 0) {
        out.add(order[i]);
      }
    }
    return out;
  }
}
