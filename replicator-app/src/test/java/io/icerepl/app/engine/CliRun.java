package io.icerepl.app.engine;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of the service jar's command line in-process, with no settle time (the tests' tables have
 * one writer each): its exit code and what it printed.
 */
public record CliRun(int exit, String out, String err) {
  public static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--settle-time", "0ms"));
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new CliRun(exit, out.toString(), err.toString());
  }
}
