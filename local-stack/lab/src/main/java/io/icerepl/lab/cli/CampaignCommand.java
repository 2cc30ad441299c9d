package io.icerepl.lab.cli;

import io.icerepl.app.cli.options.SeedOption;
import io.icerepl.app.cli.options.WorkDirOption;
import io.icerepl.lab.campaign.CrashCampaign;
import io.icerepl.lab.campaign.FailoverCampaign;
import io.icerepl.lab.campaign.FaultCampaign;
import io.icerepl.lab.campaign.GroupFailoverCampaign;
import io.icerepl.lab.campaign.PauseCampaign;
import io.icerepl.lab.campaign.ServiceJar;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code campaign crash|faults|failover|pause}: proves the service loses nothing under crashes,
 * S3/SQS faults, killed failovers and paused processes.
 */
@Command(
    name = "campaign",
    mixinStandardHelpOptions = true,
    description =
        "Fault campaigns on the embedded S3 and SQS, printing their figures and an OK/FAILED verdict.",
    subcommands = {
      CampaignCommand.Crash.class,
      CampaignCommand.Faults.class,
      CampaignCommand.Failover.class,
      CampaignCommand.Pause.class
    })
final class CampaignCommand implements Runnable {
  /** JVM options of the service processes a campaign starts: small heap, quick start. */
  private static final List<String> SERVICE_JVM_OPTIONS =
      List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "crash",
      mixinStandardHelpOptions = true,
      description = {
        "Runs the service as a separate process (java -jar <service jar> serve ...) against an embedded S3 (on disk)",
        "and SQS hosted here, while a writer commits continuously and a reader opens the replica's current",
        "metadata in a loop; kills the service with SIGKILL at random moments and restarts it. Finally restarts",
        "it once more, waits for the source head and compares every source snapshot with the replica."
      })
  static final class Crash implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--kills",
        description =
            "SIGKILLs of the service (default: ${DEFAULT-VALUE}; the full campaign: 100).")
    int kills = 10;

    @CommandLine.Mixin SeedOption seed;

    @Option(
        names = "--jar",
        description =
            "The service jar to run the service from (default: ${DEFAULT-VALUE}, the extracted"
                + " jar with its class-data archives where mvn package made it).")
    Path jar = ServiceJar.defaultJar();

    @Option(
        defaultValue = "200ms",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--min-delay",
        description =
            "Shortest time from the service serving to its kill (default: ${DEFAULT-VALUE}); one kill in five lands during start-up and two in five (and the first) right after a source commit instead.")
    Duration minDelay = Duration.ofMillis(200);

    @Option(
        defaultValue = "8s",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--max-delay",
        description =
            "Longest time from the service serving to its kill (default: ${DEFAULT-VALUE}).")
    Duration maxDelay = Duration.ofSeconds(8);

    @Option(
        defaultValue = "20ms",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--reader-pause",
        description =
            "Pause between the reader's opens of the replica (default: ${DEFAULT-VALUE}).")
    Duration readerPause = Duration.ofMillis(20);

    @Option(
        defaultValue = "1s",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--commit-interval",
        description = "Pause between the writer's commits (default: ${DEFAULT-VALUE}).")
    Duration commitInterval = Duration.ofSeconds(1);

    @Option(
        defaultValue = "5m",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--converge-timeout",
        description =
            "How long the last service run may take to reach the source head (default: ${DEFAULT-VALUE}).")
    Duration convergeTimeout = Duration.ofMinutes(5);

    @CommandLine.Mixin WorkDirOption work;

    @Option(
        names = "--service-jvm-option",
        description = "JVM options of the service process (default: ${DEFAULT-VALUE}).")
    List<String> jvmOptions = new ArrayList<>(SERVICE_JVM_OPTIONS);

    @Override
    public Integer call() throws Exception {
      if (!java.nio.file.Files.isRegularFile(jar)) {
        throw new IllegalArgumentException(
            "Cannot run the crash campaign: no service jar at "
                + jar.toAbsolutePath()
                + " (build it with mvn package, or give it with --jar)");
      }
      PrintWriter out = spec.commandLine().getOut();
      CrashCampaign campaign =
          new CrashCampaign(
              new CrashCampaign.Settings(
                  kills,
                  seed.seed(),
                  jar,
                  minDelay,
                  maxDelay,
                  commitInterval,
                  convergeTimeout,
                  readerPause,
                  work.dir().orElse(null),
                  jvmOptions),
              out);
      return campaign.run() ? 0 : 1;
    }
  }

  @Command(
      name = "faults",
      mixinStandardHelpOptions = true,
      description = {
        "For each rate: the service in-process on an embedded S3 and SQS, with an SDK interceptor on both sides",
        "answering that percentage of S3 requests with 503 SlowDown, 500 InternalError, a connection reset or",
        "a slow response, and every event published twice (some late). A writer makes its commits; the time",
        "until the replica holds the head is measured and every snapshot is compared. A 0 %% baseline runs first."
      })
  static final class Faults implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--rates",
        split = ",",
        description = "Fault percentages of S3 requests (default: ${DEFAULT-VALUE}).")
    List<Integer> rates = new ArrayList<>(List.of(1, 10, 30));

    @Option(
        names = "--commits",
        description = "Writer commits per rate (default: ${DEFAULT-VALUE}).")
    int commits = 30;

    @CommandLine.Mixin SeedOption seed;

    @Option(
        defaultValue = "3m",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--converge-timeout",
        description =
            "How long a rate may take to reach the source head (default: ${DEFAULT-VALUE}).")
    Duration convergeTimeout = Duration.ofMinutes(3);

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      return new FaultCampaign(rates, commits, seed.seed(), convergeTimeout, out).run() ? 0 : 1;
    }
  }

  @Command(
      name = "failover",
      mixinStandardHelpOptions = true,
      showDefaultValues = true,
      description = {
        "Runs the disaster-recovery drill repeatedly on local files. A writer commits to a",
        "source table, the service jar's replicate replicates it, the source commits 0-3",
        "more times and is declared lost. promote --mode now, then failback run as separate",
        "processes, each SIGKILLed 0-2 times (the first kill as it first writes to the table,",
        "the others there or at random within its duration on the first drill) and rerun",
        "until it exits 0; 1-3 commits land on the promoted table in",
        "between. The Iceberg library then reads both tables: every commit of either writer",
        "must read in the original (the unreplicated ones under the printed orphan tags),",
        "and verify must pass. Prints drills, kills, commits lost, RTO and RPO; exit 1 if a",
        "drill failed or lost a commit.",
        "With --group: a replication group's failover at one cut. orders and order_items are",
        "written in lockstep while serve replicates them as a group at the group's default",
        "settings; serve is SIGKILLed (the region is lost), then promote --consistent runs at the",
        "cut the replicas prove, SIGKILLed 0-2 times and rerun until it exits 0. Both promoted",
        "tables must be at one cut tag, with no items without their order, every replicated",
        "snapshot on main up to the cut or on the cut's replicated branch after it. Prints the",
        "cut lag at failover: from the moment the failover is asked to the cut."
      })
  static final class Failover implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--drills", paramLabel = "<n>", description = "Drills to run.")
    int drills = 5;

    @Option(
        names = "--group",
        description = "Drill a replication group's consistent failover instead of one table's.")
    boolean group;

    @Option(
        names = "--tag-interval",
        paramLabel = "<duration>",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        description =
            "With --group: the group's tag-interval (default: the service's, 5 minutes); 500ms"
                + " drills the group as it was tagged before its replicas recorded their cut.")
    Duration tagInterval;

    @Option(
        names = "--clock-skew",
        paramLabel = "<duration>",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        description =
            "With --group: the group's clock-skew allowance (default: the service's, 1s).")
    Duration clockSkew;

    @Option(
        names = "--known-current-interval",
        paramLabel = "<duration>",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        description =
            "With --group: the group's known-current-interval (default: the service's, 5s).")
    Duration knownCurrentInterval;

    @CommandLine.Mixin SeedOption seed;

    @Option(
        names = "--jar",
        paramLabel = "<service jar>",
        description =
            "The service jar whose commands the drills run (default: ${DEFAULT-VALUE}, the"
                + " extracted jar with its class-data archives where mvn package made it).")
    Path jar = ServiceJar.defaultJar();

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      if (!java.nio.file.Files.isRegularFile(jar)) {
        throw new IllegalArgumentException(
            "Cannot run the failover campaign: no service jar at "
                + jar.toAbsolutePath()
                + " (build it with mvn package, or give it with --jar)");
      }
      PrintWriter out = spec.commandLine().getOut();
      if (group) {
        return new GroupFailoverCampaign(
                    new GroupFailoverCampaign.Settings(
                        drills,
                        seed.seed(),
                        jar,
                        work.dir().orElse(null),
                        SERVICE_JVM_OPTIONS,
                        new GroupFailoverCampaign.GroupSettings(
                            Optional.ofNullable(tagInterval),
                            Optional.ofNullable(clockSkew),
                            Optional.ofNullable(knownCurrentInterval))),
                    out)
                .run()
            ? 0
            : 1;
      }
      FailoverCampaign campaign =
          new FailoverCampaign(
              new FailoverCampaign.Settings(
                  drills, seed.seed(), jar, work.dir().orElse(null), SERVICE_JVM_OPTIONS),
              out);
      return campaign.run() ? 0 : 1;
    }
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = {
        "Runs 2 or 3 serve processes of the service jar on one queue against an embedded S3 and SQS while a writer",
        "commits; stops one at a time (SIGSTOP) past the lease TTL, some at a chosen replica write through the",
        "service's test-only pause hook, lets another take the table over, then continues it (SIGCONT). Every",
        "write a paused process attempts after losing its lease must be refused by the store; every commit",
        "replicated once and in order; no table diverged."
      })
  static final class Pause implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--instances",
        description = "Service processes on the queue, 2 or 3 (default: ${DEFAULT-VALUE}).")
    int instances = 3;

    @Option(
        names = "--pauses",
        description = "Pauses (default: ${DEFAULT-VALUE}; the full campaign: 30).")
    int pauses = 6;

    @CommandLine.Mixin SeedOption seed;

    @Option(
        names = "--jar",
        description = "The service jar to run the service from (default: ${DEFAULT-VALUE}).")
    Path jar = ServiceJar.defaultJar();

    @Option(
        defaultValue = "3s",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--lock-ttl",
        description =
            "The services' lease TTL (replicator.s3.lock-ttl), which each pause outlasts (default: ${DEFAULT-VALUE}).")
    Duration lockTtl = Duration.ofSeconds(3);

    @Option(
        defaultValue = "1s",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--commit-interval",
        description = "Pause between the writer's commits (default: ${DEFAULT-VALUE}).")
    Duration commitInterval = Duration.ofSeconds(1);

    @Option(
        defaultValue = "5m",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--converge-timeout",
        description =
            "How long the services may take to reach the source head at the end (default: ${DEFAULT-VALUE}).")
    Duration convergeTimeout = Duration.ofMinutes(5);

    @CommandLine.Mixin WorkDirOption work;

    @Option(
        defaultValue = "0s",
        converter = io.icerepl.app.cli.options.DurationConverter.class,
        names = "--clock-ahead",
        description =
            "Runs instance 0 with its clock this far ahead of the others' (the service's test-only"
                + " replicator.test.clock-offset), so it judges their leases expired early (default: ${DEFAULT-VALUE}).")
    Duration clockAhead = Duration.ZERO;

    @Option(
        names = "--service-jvm-option",
        description = "JVM options of the service processes (default: ${DEFAULT-VALUE}).")
    List<String> jvmOptions = new ArrayList<>(SERVICE_JVM_OPTIONS);

    @Override
    public Integer call() throws Exception {
      if (instances < 2 || instances > 3) {
        throw new IllegalArgumentException(
            "Cannot run the pause campaign: --instances is " + instances + ", not 2 or 3");
      }
      if (!java.nio.file.Files.isRegularFile(jar)) {
        throw new IllegalArgumentException(
            "Cannot run the pause campaign: no service jar at "
                + jar.toAbsolutePath()
                + " (build it with mvn package, or give it with --jar)");
      }
      PauseCampaign campaign =
          new PauseCampaign(
              new PauseCampaign.Settings(
                  instances,
                  pauses,
                  seed.seed(),
                  jar,
                  lockTtl,
                  commitInterval,
                  convergeTimeout,
                  work.dir().orElse(null),
                  jvmOptions,
                  clockAhead),
              spec.commandLine().getOut());
      return campaign.run() ? 0 : 1;
    }
  }
}
