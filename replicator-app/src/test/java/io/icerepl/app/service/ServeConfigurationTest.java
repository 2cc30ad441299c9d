package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.SourceTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} with a configuration that would replicate nothing it was asked to is refused before
 * the service answers: exit 2 and one line naming the key and what is wrong, instead of a service
 * reporting UP. Through the command line's entry point, as an operator starts it.
 */
class ServeConfigurationTest {
  /** Only guards a service that wrongly started from blocking the suite; nothing is timed. */
  private static final Duration STARTED_INSTEAD = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void noRuleIsRefused() {
    PrintStream stdout = System.out;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    Served served;
    System.setOut(new PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      served = serve(List.of());
    } finally {
      System.setOut(stdout);
    }

    String problem =
        "Cannot start the service: replicator.rules is empty, so no table would be"
            + " replicated; give at least one rule (replicator.rules[0].name, .source or"
            + " .source-catalog, .targets[0].name and .prefix)";
    assertThat(served.exit()).as(served.err()).isEqualTo(2);
    assertThat(served.err()).contains("error: " + problem);
    // the log says what is wrong, as an operator's mistake: no stack trace
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .contains("APPLICATION FAILED TO START", problem)
        .doesNotContain("\tat org.springframework");
  }

  @Test
  void aGroupOnATargetNoRuleHasIsRefused() {
    Served served =
        serve(
            rule(),
            List.of(
                "--replicator.groups[0].name=sales",
                "--replicator.groups[0].target=b",
                "--replicator.groups[0].tables[0]=sales/orders"));

    assertThat(served.exit()).as(served.err()).isEqualTo(2);
    assertThat(served.err())
        .contains(
            "error: Cannot start the service: replicator.groups[0].target: group sales names"
                + " target b, which no rule has (the rules' targets: a)");
  }

  @Test
  void aGroupNamingATableNoRuleHoldsIsRefused() {
    SourceTable.create(dir.resolve("source/sales/orders"), 2);

    Served served =
        serve(
            rule(),
            List.of(
                "--replicator.groups[0].name=sales",
                "--replicator.groups[0].target=a",
                "--replicator.groups[0].tables[0]=sales/orders",
                "--replicator.groups[0].tables[1]=sales/order_items"));

    assertThat(served.exit()).as(served.err()).isEqualTo(2);
    assertThat(served.err())
        .contains(
            "error: Cannot start the service: replicator.groups[0].tables[1]: group sales names"
                + " table sales/order_items, which no rule replicating to target a holds (no"
                + " table at "
                + dir.resolve("source").toUri().toString().replaceAll("/$", "")
                + "/sales/order_items)");
  }

  private List<String> rule() {
    return List.of(
        "--replicator.rules[0].name=lake",
        "--replicator.rules[0].source=" + dir.resolve("source").toUri(),
        "--replicator.rules[0].targets[0].name=a",
        "--replicator.rules[0].targets[0].prefix=" + dir.resolve("replica").toUri());
  }

  private static Served serve(List<String> rules, List<String> more) {
    List<String> all = new ArrayList<>(rules);
    all.addAll(more);
    return serve(all);
  }

  private static Served serve(List<String> properties) {
    List<String> args = new ArrayList<>();
    args.add("serve");
    args.add("--server.port=0");
    args.add("--spring.main.banner-mode=off");
    args.addAll(properties);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        assertTimeoutPreemptively(
            STARTED_INSTEAD,
            () ->
                ReplicatorCli.execute(
                    new PrintWriter(out, true),
                    new PrintWriter(err, true),
                    args.toArray(String[]::new)),
            "the service started instead of refusing its configuration");
    return new Served(exit, err.toString());
  }

  private record Served(int exit, String err) {}
}
