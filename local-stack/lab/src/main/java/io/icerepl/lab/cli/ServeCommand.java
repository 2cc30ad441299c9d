package io.icerepl.lab.cli;

import io.icerepl.app.service.ReplicatorApplication;
import io.icerepl.lab.local.DemoWriter;
import io.icerepl.lab.local.EmbeddedAws;
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
      "committing to s3://source/warehouse/demo/orders, which the service replicates to s3://replica/warehouse."
    })
final class ServeCommand implements Callable<Integer> {

  @Option(
      names = "--local",
      description = "Run on an embedded S3 and SQS with a demo source table.")
  boolean local;

  @Option(
      defaultValue = "5s",
      converter = io.icerepl.app.cli.DurationConverter.class,
      names = "--demo-interval",
      paramLabel = "<duration>",
      description =
          "With --local: time between the demo writer's commits (default: ${DEFAULT-VALUE}).")
  Duration demoInterval = Duration.ofSeconds(5);

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    if (!local) {
      return ReplicatorApplication.serve(springArgs);
    }
    try (EmbeddedAws aws = EmbeddedAws.start()) {
      List<String> args = new ArrayList<>(aws.springArguments());
      args.add("--spring.profiles.active=local");
      // a token of the demo's own, printed, so a failover drill can promote right away
      if (springArgs.stream().noneMatch(a -> a.startsWith("--replicator.api.token"))) {
        String token = "local-" + java.util.UUID.randomUUID();
        args.add("--replicator.api.token=" + token);
        System.out.println("demo API token     " + token);
      }
      args.addAll(springArgs);
      return ReplicatorApplication.serve(
          args,
          context -> {
            DemoWriter writer =
                new DemoWriter(aws.s3().endpoint(), aws.sqs().client(), aws.queueUrl());
            writer.start(demoInterval);
            return writer;
          });
    }
  }
}
