package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/replicator} runs the fast start-up path users would not know to ask for: the extracted
 * jar with the class-data archive of the command's kind, the plain jar where the build made none;
 * and the command line generates its own shell completion.
 */
class LauncherTest {
  private static final Path LAUNCHER = Path.of("..", "bin", "replicator").toAbsolutePath();

  @TempDir Path home;

  private String command(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("sh", LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("REPLICATOR_HOME", home.toString());
    builder.environment().put("REPLICATOR_PRINT_COMMAND", "1");
    builder.environment().put("JAVA", "java");
    builder.environment().remove("JAVA_OPTS");
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(out).isZero();
    return out.strip();
  }

  @Test
  void theLauncherTakesTheExtractedJarWithTheArchiveOfTheCommandsKind() throws Exception {
    Path cds = Files.createDirectories(home.resolve("replicator-app/target/cds"));
    for (String file : List.of("replicator-app.jar", "replicate.jsa", "serve.jsa")) {
      Files.writeString(cds.resolve(file), "");
    }

    assertThat(command("replicate", "--source", "s3://a/t"))
        .isEqualTo(
            "java  -XX:SharedArchiveFile="
                + cds.resolve("replicate.jsa")
                + " -Xshare:auto -Xlog:cds=off -XX:TieredStopAtLevel=1 -jar "
                + cds.resolve("replicator-app.jar")
                + " replicate --source s3://a/t");
    assertThat(command("serve"))
        .contains("-XX:SharedArchiveFile=" + cds.resolve("serve.jsa"))
        .doesNotContain("TieredStopAtLevel")
        .endsWith(cds.resolve("replicator-app.jar") + " serve");
  }

  @Test
  void withoutAnExtractedJarTheLauncherRunsThePlainOne() throws Exception {
    assertThat(command("verify", "--target", "/t"))
        .isEqualTo(
            "java  -jar "
                + home.resolve("replicator-app/target/replicator-app.jar")
                + " verify --target /t");
  }

  @Test
  void theCommandLineGeneratesItsShellCompletion() {
    StringWriter out = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(new StringWriter()), "generate-completion");
    assertThat(exit).isZero();
    assertThat(out.toString())
        .contains("complete -F")
        .contains("replicate")
        .contains("failback")
        .contains("--source");
  }
}
