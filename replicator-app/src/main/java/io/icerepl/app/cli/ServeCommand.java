package io.icerepl.app.cli;

import io.icerepl.app.service.ReplicatorApplication;
import io.icerepl.lab.local.DemoWriter;
import io.icerepl.lab.local.EmbeddedAws;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code serve}: runs the replication service until it is stopped. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the replication service: reconciliation, SQS event intake, retention schedule, status API,",
      "metrics and health. Every other argument goes to Spring, e.g. --spring.config.additional-location=",
      "file:replicator.yml or --server.port=8081.",
      "With --local it runs on an embedded S3 and SQS (no AWS account, no Docker) and a demo writer keeps",
      "committing to s3://source/warehouse/demo/orders, which the service replicates to s3://replica/warehouse."
    })
final class ServeCommand implements Callable<Integer> {

  @Option(names = "--local", description = "Run on an embedded S3 and SQS with a demo source table.")
  boolean local;

  @Option(names = "--demo-interval", paramLabel = "<duration>",
      description = "With --local: time between the demo writer's commits (default: ${DEFAULT-VALUE}).")
  Duration demoInterval = Duration.ofSeconds(5);

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    if (!local) {
      return run(springArgs, null);
    }
    try (EmbeddedAws aws = EmbeddedAws.start()) {
      List<String> args = new ArrayList<>(aws.springArguments());
      args.add("--spring.profiles.active=local");
      args.addAll(springArgs);
      return run(args, aws);
    }
  }

  private Integer run(List<String> args, EmbeddedAws aws) throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    SpringApplication application = new SpringApplication(ReplicatorApplication.class);
    application.addListeners(event -> {
      if (event instanceof ContextClosedEvent) {
        closed.countDown();
      }
    });
    ConfigurableApplicationContext context = application.run(args.toArray(String[]::new));
    DemoWriter writer = null;
    if (aws != null) {
      writer = new DemoWriter(aws.s3().endpoint(), aws.sqs().client(), aws.queueUrl());
      writer.start(demoInterval);
    }
    try {
      // main() exits the JVM when this returns: wait until the context closes (e.g. on SIGTERM)
      closed.await();
    } finally {
      if (writer != null) {
        writer.close();
      }
    }
    return SpringApplication.exit(context);
  }
}
