package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
            "java -XX:SharedArchiveFile="
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
            "java -jar "
                + home.resolve("replicator-app/target/replicator-app.jar")
                + " verify --target /t");
  }

  /**
   * {@code JAVA_OPTS} is split into words as a shell would, but a word is never taken for a file
   * pattern: run from a folder holding a file named like the expansion of {@code -Dglob=*}, the JVM
   * (here a stand-in that writes its arguments, one a line) gets the option as written.
   */
  @Test
  void jvmOptionsReachTheJvmAsWrittenNeverGlobExpanded(@TempDir Path cwd) throws Exception {
    Files.createFile(cwd.resolve("-Dglob=expanded"));
    Path java = javaThatPrintsItsArguments();

    List<String> arguments =
        run(cwd, Map.of("JAVA", java.toString(), "JAVA_OPTS", "-Dglob=*  -Xmx64m"), "replicate")
            .lines()
            .toList();

    assertThat(arguments)
        .containsExactly(
            "-Dglob=*",
            "-Xmx64m",
            "-jar",
            home.resolve("replicator-app/target/replicator-app.jar").toString(),
            "replicate");
  }

  /**
   * The printed command is quoted for a shell: a home with a blank, an option with a pattern and an
   * argument with a blank, read back by bash, are the very words the launcher runs.
   */
  @Test
  void thePrintedCommandReadsBackAsTheCommandRun(@TempDir Path cwd) throws Exception {
    Files.createFile(cwd.resolve("-Dglob=expanded"));
    Path spaced = Files.createDirectories(home.resolve("my home"));
    Path java = javaThatPrintsItsArguments();
    Map<String, String> env =
        Map.of(
            "REPLICATOR_HOME", spaced.toString(),
            "JAVA", java.toString(),
            "JAVA_OPTS", "-Dglob=* -Xmx64m");
    String[] args = {"replicate", "--source", "s3://b/t it's"};

    String printed = run(cwd, with(env, "REPLICATOR_PRINT_COMMAND", "1"), args).strip();
    List<String> ran = run(cwd, env, args).lines().toList();

    assertThat(printed).contains("-Dglob=\\*", "my\\ home", "it\\'s");
    List<String> readBack =
        shell(cwd, "eval \"set -- $1\"; printf '%s\\n' \"$@\"", printed).lines().toList();
    assertThat(readBack.get(0)).isEqualTo(java.toString());
    assertThat(readBack.subList(1, readBack.size())).isEqualTo(ran);
  }

  /** Runs the launcher itself (its {@code #!} line), from {@code cwd}: what it printed. */
  private String run(Path cwd, Map<String, String> env, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile());
    builder.environment().remove("JAVA_OPTS");
    builder.environment().remove("REPLICATOR_PRINT_COMMAND");
    builder.environment().put("REPLICATOR_HOME", home.toString());
    builder.environment().putAll(env);
    return output(builder);
  }

  private static String shell(Path cwd, String script, String arg) throws Exception {
    return output(new ProcessBuilder("bash", "-c", script, "bash", arg).directory(cwd.toFile()));
  }

  private static String output(ProcessBuilder builder) throws Exception {
    Process process = builder.redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(out).isZero();
    return out;
  }

  /** A stand-in for java that writes the arguments it was given, one a line. */
  private Path javaThatPrintsItsArguments() throws Exception {
    Path java = home.resolve("java-arguments");
    Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
    java.toFile().setExecutable(true);
    return java;
  }

  private static Map<String, String> with(Map<String, String> env, String key, String value) {
    Map<String, String> more = new java.util.HashMap<>(env);
    more.put(key, value);
    return more;
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
