package io.icerepl.lab.cli;

import io.icerepl.app.service.ReplicatorApplication;
import io.icerepl.lab.local.DemoWriter;
import io.icerepl.lab.local.EmbeddedAws;
import io.icerepl.localstack.EmbeddedS3;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code serve}: the replication service in-process, with {@code --local} on an embedded S3 and
 * SQS.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the replication service as the service jar's serve does; every other argument goes to Spring.",
      "With --local it runs on an embedded S3 and SQS (no AWS account, no Docker) and a demo writer keeps",
      "committing batches to s3://source/warehouse/demo/orders and then demo/order_items, which the service",
      "replicates to s3://replica/warehouse as the group demo. It prints the embedded S3's endpoint and",
      "credentials as shell lines, for the replicator's command line (docs/failover-runbook.md)."
    })
final class ServeCommand implements Callable<Integer> {

  @Option(
      names = "--local",
      description = "Run on an embedded S3 and SQS with a demo source table.")
  boolean local;

  @Option(
      defaultValue = "5s",
      converter = io.icerepl.app.cli.options.DurationConverter.class,
      names = "--demo-interval",
      paramLabel = "<duration>",
      description =
          "With --local: time between the demo writer's commits (default: ${DEFAULT-VALUE}).")
  Duration demoInterval = Duration.ofSeconds(5);

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Told of the running service's context once it is up (tests stop the service through it). */
  java.util.function.Consumer<org.springframework.context.ConfigurableApplicationContext> started =
      context -> {};

  @Override
  public Integer call() throws Exception {
    if (!local) {
      return ReplicatorApplication.serve(springArgs);
    }
    try (EmbeddedAws aws = EmbeddedAws.start()) {
      List<String> args = new ArrayList<>(aws.springArguments());
      args.add("--spring.profiles.active=local");
      PrintWriter out = spec.commandLine().getOut();
      // a token of the demo's own, printed, so a failover drill can promote right away
      String token = null;
      if (springArgs.stream().noneMatch(a -> a.startsWith("--replicator.api.token"))) {
        token = "local-" + java.util.UUID.randomUUID();
        args.add("--replicator.api.token=" + token);
        out.println("demo API token     " + token);
      }
      shellLines(aws.s3().endpoint().toString(), token).forEach(out::println);
      out.flush();
      args.addAll(springArgs);
      DemoWriter writer = new DemoWriter(aws.s3().endpoint(), aws.sqs().client(), aws.queueUrl());
      writer.createTables();
      try (writer) {
        return ReplicatorApplication.serve(
            args,
            context -> {
              started.accept(context);
              writer.start(demoInterval);
              return () -> {};
            });
      }
    }
  }

  /**
   * The embedded S3 as shell lines to paste: the credentials where the command line's default chain
   * reads them, and its endpoint options in {@code S3_OPTIONS} (the runbook's commands name it),
   * and the demo's token if it made one.
   */
  static List<String> shellLines(String s3Endpoint, String token) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "embedded S3        "
            + s3Endpoint
            + " (path-style, region "
            + EmbeddedS3.REGION.id()
            + ")");
    lines.add("for the replicator's command line on it, paste into a shell:");
    lines.add(
        "  export AWS_ACCESS_KEY_ID="
            + EmbeddedS3.ACCESS_KEY
            + " AWS_SECRET_ACCESS_KEY="
            + EmbeddedS3.SECRET_KEY
            + " AWS_REGION="
            + EmbeddedS3.REGION.id());
    lines.add("  export S3_OPTIONS=\"--endpoint " + s3Endpoint + " --path-style\"");
    if (token != null) {
      lines.add("  export TOKEN=" + token);
    }
    return lines;
  }
}
