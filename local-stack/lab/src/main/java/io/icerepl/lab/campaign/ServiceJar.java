package io.icerepl.lab.campaign;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The service jar run as a separate process, {@code java <jvm options> -jar <jar> <arguments>}, so
 * a campaign can SIGKILL it as an operator's crash would: no shutdown hook, no graceful stop.
 */
record ServiceJar(Path jar, List<String> jvmOptions) {
  ServiceJar {
    jvmOptions = List.copyOf(jvmOptions);
  }

  /** Starts one command, its output and errors appended to {@code log}. */
  Process start(Path log, List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(arguments);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }
}
