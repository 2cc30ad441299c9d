package io.icerepl.app.service.config;

import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.group.GroupSettings;
import io.icerepl.merge.retention.Durations;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The service's configuration, under {@code replicator.*}. Every key has a default; see {@code
 * application.yml} for an annotated example.
 *
 * @param rules which source prefixes replicate to which target prefixes (none by default)
 * @param concurrency how much runs at once
 * @param reconciliationInterval how often every table of every rule is compared with its replicas,
 *     catching up events that were lost (default PT1M)
 * @param reconciliationIdleInterval the longest a table found unchanged goes without being listed
 *     by reconciliation: each pass that finds it unchanged doubles the time to its next check, from
 *     {@code reconciliationInterval} up to this, and a change brings it back to every pass, so a
 *     lost event is caught within this plus one pass. By default 15 × {@code
 *     reconciliationInterval} (PT15M) with an event intake ({@code sqs.enabled}), and {@code
 *     reconciliationInterval} without one, where reconciliation is how changes are found: every
 *     table at every pass. A group's tables and a catalog's are checked at every pass
 * @param settleTime how old a {@code <V>-<uuid>.metadata.json} file of a table without a version
 *     hint must be before it is trusted as the table's head (default PT5S): a writer that lost its
 *     catalog commit leaves a newer file that was never the table's state, and usually removes it
 * @param retry back-off of a table whose replication failed
 * @param sqs S3 event intake from an SQS queue
 * @param coalesceVersions apply only the source head when catching up, skipping intermediate
 *     versions (default false: one replica commit per source version)
 * @param maxMetadataBytes the largest metadata file read, decompressed (default 256MB, binary
 *     units)
 * @param limits bounds on what events can make the service hold
 * @param batchOperations when a backfill hands its byte-for-byte copies to S3 Batch Operations
 * @param shutdownTimeout how long a stopping service lets running replications finish before it
 *     abandons them (default PT10S); a run abandoned half-way leaves the replica as it was (its
 *     commit is the last step) and releases its table's lease, so another instance takes the table
 *     at once
 * @param groups replication groups: tables whose replicas are read at one moment
 * @param writerClockAllowance how far ahead of the service's clock a writer may stamp a commit
 *     before it is reported (default PT1S); a group's table is judged by its group's {@code
 *     clock-skew} instead ({@link #writerClockAllowanceOf})
 */
@Validated
@ConfigurationProperties("replicator")
public record ReplicatorProperties(
    @Valid @DefaultValue List<Rule> rules,
    @Valid @DefaultValue Concurrency concurrency,
    @NotNull @DefaultValue("PT1M") Duration reconciliationInterval,
    Duration reconciliationIdleInterval,
    @NotNull @DefaultValue("PT5S") Duration settleTime,
    @Valid @DefaultValue Retry retry,
    @Valid @DefaultValue Sqs sqs,
    @DefaultValue("false") boolean coalesceVersions,
    @NotNull @DefaultValue("256MB") DataSize maxMetadataBytes,
    @Valid @DefaultValue Limits limits,
    @Valid @DefaultValue BatchOperations batchOperations,
    @NotNull @DefaultValue("PT10S") Duration shutdownTimeout,
    @Valid @DefaultValue List<Group> groups,
    @NotNull @DefaultValue(WRITER_CLOCK_ALLOWANCE) Duration writerClockAllowance) {

  /** The default of {@code writer-clock-allowance}. */
  public static final String WRITER_CLOCK_ALLOWANCE = "PT1S";

  /** How many passes an idle table goes unlisted at most, by default, with an event intake. */
  public static final int IDLE_PASSES = 15;

  public ReplicatorProperties {
    rules = List.copyOf(rules);
    groups = List.copyOf(groups);
    Set<String> groupNames = new HashSet<>();
    for (Group group : groups) {
      if (!groupNames.add(group.name())) {
        throw new IllegalArgumentException(
            "replicator.groups: two groups are named " + group.name());
      }
    }
    if (reconciliationIdleInterval == null) {
      reconciliationIdleInterval =
          sqs.enabled() ? reconciliationInterval.multipliedBy(IDLE_PASSES) : reconciliationInterval;
    }
    if (reconciliationIdleInterval.isNegative()) {
      throw new IllegalArgumentException(
          "replicator.reconciliation-idle-interval cannot be negative, got "
              + reconciliationIdleInterval);
    }
    if (maxMetadataBytes.toBytes() < 1) {
      throw new IllegalArgumentException(
          "replicator.max-metadata-bytes must be positive, got " + maxMetadataBytes);
    }
    if (writerClockAllowance.isNegative()) {
      throw new IllegalArgumentException(
          "replicator.writer-clock-allowance cannot be negative, got " + writerClockAllowance);
    }
    long names = rules.stream().map(Rule::name).distinct().count();
    if (names != rules.size()) {
      throw new IllegalArgumentException("replicator.rules[].name must be unique");
    }
  }

  /**
   * How far ahead of the service's clock a writer of the table may stamp a commit before it is
   * reported: the smallest {@code clock-skew} of the groups holding the table on that target, since
   * a group's cut is only right for writers within it; {@code writer-clock-allowance} for a table
   * in no group.
   *
   * @param table as the status API and the groups name it, {@code <namespace>/<table>}
   */
  public Duration writerClockAllowanceOf(String target, String table) {
    return groups.stream()
        .filter(group -> group.target().equals(target) && group.tables().contains(table))
        .map(Group::clockSkew)
        .min(Duration::compareTo)
        .orElse(writerClockAllowance);
  }

  /**
   * Every table under {@code source} is replicated to the same relative path under each target.
   *
   * @param name the rule's name, unique, shown in logs
   * @param source the source prefix URI (e.g. {@code s3://bucket/warehouse} or {@code
   *     file:/data/wh})
   * @param targets where replicas go; one source fans out to every target
   * @param retention the replicas' own snapshot retention
   * @param allowedSourcePrefixes where else than in its own folder a table's metadata may keep
   *     files (its {@code location}, {@code write.data.path}, {@code write.metadata.path}): a table
   *     naming any other place fails with "outside the mapping", so one table's metadata cannot
   *     make the service copy another's files. Files under them go to folders of the replica's own,
   *     like every prefix the table declares (default none)
   * @param sourceCatalog instead of {@code source}: a catalog whose tables the rule replicates, as
   *     Iceberg catalog properties plus {@code name=} (e.g. {@code
   *     name=prod,type=rest,uri=https://catalog.example.com}); each table's head is the catalog's
   *     metadata location, and its replicas go under each target prefix at {@code
   *     <namespace>/<table>}
   * @param namespaces the source catalog's namespaces to replicate (and those nested in them),
   *     levels joined by {@code .}; default all
   * @param verify the replicas' scheduled verification
   */
  public record Rule(
      @NotBlank String name,
      String source,
      @NotEmpty @Valid List<Target> targets,
      @Valid @DefaultValue Retention retention,
      @DefaultValue List<@NotBlank String> allowedSourcePrefixes,
      String sourceCatalog,
      @DefaultValue List<@NotBlank String> namespaces,
      @Valid @DefaultValue Verify verify) {
    @ConstructorBinding
    public Rule {
      allowedSourcePrefixes = List.copyOf(allowedSourcePrefixes);
      namespaces = List.copyOf(namespaces);
      boolean hasSource = source != null && !source.isBlank();
      boolean hasCatalog = sourceCatalog != null && !sourceCatalog.isBlank();
      if (hasSource == hasCatalog) {
        throw new IllegalArgumentException(
            "replicator.rules["
                + name
                + "] needs exactly one of source (a prefix) and source-catalog (catalog properties)");
      }
      if (hasCatalog) {
        CatalogSpec.parse(sourceCatalog);
      }
      targets = List.copyOf(targets);
      long names = targets.stream().map(Target::name).distinct().count();
      if (names != targets.size()) {
        throw new IllegalArgumentException(
            "replicator.rules[" + name + "].targets[].name must be unique");
      }
    }

    public Rule(String name, String source, List<Target> targets, Retention retention) {
      this(name, source, targets, retention, List.of());
    }

    public Rule(
        String name,
        String source,
        List<Target> targets,
        Retention retention,
        List<String> allowedSourcePrefixes) {
      this(
          name,
          source,
          targets,
          retention,
          allowedSourcePrefixes,
          null,
          List.of(),
          new Verify(true, Verify.DEFAULT_INTERVAL));
    }
  }

  /**
   * Each replica of the rule is verified every {@code interval} when enabled, in its table's lane
   * (never beside a replication run of it), against the rule's source; on demand it always can be.
   *
   * @param enabled verify on a schedule (default true)
   * @param interval how often (default P1D)
   */
  public record Verify(
      @DefaultValue("true") boolean enabled, @NotNull @DefaultValue("P1D") Duration interval) {
    static final Duration DEFAULT_INTERVAL = Duration.ofDays(1);

    public Verify {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException(
            "replicator.rules[].verify.interval must be positive, got " + interval);
      }
    }
  }

  /**
   * @param name the target's name, used in the status API and metric tags
   * @param prefix the target prefix URI under which replicas are written
   * @param map where files under a source prefix go on this target, for data kept outside the
   *     tables (like {@code --map}); a source prefix mapped here is also allowed (default none)
   * @param catalog a catalog every replica is registered in, as Iceberg catalog properties plus
   *     {@code name=}; after each run its entry is moved to the replica's current version (default
   *     none)
   * @param namespace the replicas' namespace in that catalog, levels joined by {@code .} (default
   *     the source table's)
   */
  public record Target(
      @NotBlank String name,
      @NotBlank String prefix,
      @Valid @DefaultValue List<PrefixMap> map,
      String catalog,
      String namespace) {
    @ConstructorBinding
    public Target {
      map = List.copyOf(map);
      if (catalog != null && !catalog.isBlank()) {
        CatalogSpec.parse(catalog);
      }
    }

    public Target(String name, String prefix) {
      this(name, prefix, List.of());
    }

    public Target(String name, String prefix, List<PrefixMap> map) {
      this(name, prefix, map, null, null);
    }
  }

  /**
   * @param source a source prefix
   * @param target the prefix its files get on the target
   */
  public record PrefixMap(@NotBlank String source, @NotBlank String target) {}

  /**
   * The replica's own retention, applied every {@code interval} when enabled. Unset values follow
   * the replica's {@code history.expire.*} properties (copied from the source).
   *
   * @param enabled run retention on a schedule (default false)
   * @param interval how often (default PT1H)
   * @param retentionPeriod keep snapshots younger than this, e.g. {@code 90d} (optional)
   * @param retainLast keep at least this many snapshots per branch (optional)
   * @param maxRefAge drop refs other than main whose snapshot is older than this (optional)
   * @param replicaOwnsFiles delete unreachable files even when the table says {@code
   *     gc.enabled=false} (default false)
   */
  public record Retention(
      @DefaultValue("false") boolean enabled,
      @NotNull @DefaultValue("PT1H") Duration interval,
      String retentionPeriod,
      @Min(1) Integer retainLast,
      String maxRefAge,
      @DefaultValue("false") boolean replicaOwnsFiles) {
    public Retention {
      parse(retentionPeriod);
      parse(maxRefAge);
    }

    public Optional<Long> retentionPeriodMs() {
      return parse(retentionPeriod);
    }

    public Optional<Long> maxRefAgeMs() {
      return parse(maxRefAge);
    }

    private static Optional<Long> parse(String text) {
      return Optional.ofNullable(text).filter(t -> !t.isBlank()).map(Durations::parseMillis);
    }
  }

  /**
   * @param tables table replications running at once (default 16: a run mostly waits on S3 and the
   *     catalog, so lanes, not cores, bound an instance; 4 lanes fell behind 200 tables offering 29
   *     commits/s at 0.84 cores, 16 kept up, {@code benchmark fleet})
   * @param filesPerTable files copied at once per running table (default 8)
   */
  public record Concurrency(
      @Min(1) @DefaultValue("16") int tables, @Min(1) @DefaultValue("8") int filesPerTable) {}

  /**
   * A failed table is tried again after {@code initialBackoff}, doubling up to {@code maxBackoff}.
   *
   * @param initialBackoff the first wait (default PT5S)
   * @param maxBackoff the longest wait (default PT10M)
   */
  public record Retry(
      @NotNull @DefaultValue("PT5S") Duration initialBackoff,
      @NotNull @DefaultValue("PT10M") Duration maxBackoff) {
    public Retry {
      if (initialBackoff.isNegative()
          || initialBackoff.isZero()
          || maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException(
            "replicator.retry needs 0 < initial-backoff <= max-backoff, got "
                + initialBackoff
                + " and "
                + maxBackoff);
      }
    }
  }

  /**
   * Bounds on what hostile or broken event messages can make the service hold.
   *
   * @param recordsPerMessage records one event message may carry (default 100; S3 and EventBridge
   *     send one): a message with more is refused, retried and ends in the dead-letter queue
   * @param lanesPerRule (table, target) lanes one rule may hold (default 10000): a table beyond it
   *     is not replicated, and {@code replicator_lanes_refused_total} counts each refusal
   */
  public record Limits(
      @Min(1) @DefaultValue("100") int recordsPerMessage,
      @Min(1) @DefaultValue("10000") int lanesPerRule) {}

  /**
   * @param enabled listen to the queue (default false; reconciliation alone still replicates)
   * @param queue the queue name or URL receiving S3 ObjectCreated notifications or EventBridge
   *     "Object Created" events; its redrive policy sends poison messages to a dead-letter queue
   * @param deadLetterQueue the name or URL of that dead-letter queue, in the queue's region
   *     (optional): when set, its depth is exported as {@code
   *     replicator_dead_letter_queue_messages}
   * @param deadLetterPollInterval how often the dead-letter queue's depth is read (default PT1M)
   */
  public record Sqs(
      @DefaultValue("false") boolean enabled,
      @DefaultValue("iceberg-replicator-events") String queue,
      String deadLetterQueue,
      @NotNull @DefaultValue("PT1M") Duration deadLetterPollInterval) {}

  /**
   * The S3 Batch Operations pre-copy of huge backfills: an S3 Batch Operations job copies a
   * backfill's data and delete files when source and target are on S3, the target only adds a key
   * prefix, and what is missing reaches a minimum; the service's own pass then copies the rest.
   *
   * @param enabled create jobs (default false)
   * @param roleArn the role S3 Batch Operations assumes (required when enabled)
   * @param accountId the account jobs are created in (default: the role's)
   * @param minFiles files missing on the target from which a job is created (default 100000)
   * @param minBytes bytes missing on the target from which a job is created, either minimum
   *     sufficing (default 1TB, binary units)
   * @param pollInterval how often a running job is asked where it stands (default PT30S)
   * @param priority the jobs' priority (default 10)
   */
  public record BatchOperations(
      @DefaultValue("false") boolean enabled,
      String roleArn,
      String accountId,
      @Min(1) @DefaultValue("100000") long minFiles,
      @NotNull @DefaultValue("1TB") DataSize minBytes,
      @NotNull @DefaultValue("PT30S") Duration pollInterval,
      @Min(0) @DefaultValue("10") int priority) {
    public BatchOperations {
      if (enabled && (roleArn == null || roleArn.isBlank())) {
        throw new IllegalArgumentException(
            "replicator.batch-operations.role-arn is required when"
                + " replicator.batch-operations.enabled is true");
      }
    }
  }

  /**
   * A replication group: tables of one target read at one moment, the group's cut (the status API's
   * {@code /api/groups}).
   *
   * @param name how the status API names the group
   * @param target the target the group's replicas are in
   * @param tables the group's tables as the status API addresses them: {@code <namespace>/<table>}
   * @param clockSkew how far a writer's clock may run behind the replicator's: each replica is read
   *     as of the cut less this (default one second)
   * @param ref the name of the group's tags on each replica: the moving tag {@code <ref>} and a cut
   *     tag {@code <ref>-<yyyyMMdd'T'HHmmss'Z'>} per cut (default the group's name)
   * @param tagInterval how often the cut is tagged (default five minutes; zero tags nothing)
   * @param keepTags how long each cut tag stays on the replicas (default a day; the newest stays)
   * @param transactionWindow the group is read, and its cuts tagged, only at moments no table's
   *     {@code main} changed in this window before, so a multi-table transaction whose snapshots
   *     lie closer together is on every table at a cut or on none (default zero: off)
   * @param knownCurrentInterval how often each table of the group is checked and, found current,
   *     recorded so in its replica's state (default five seconds): the cut, and so what a
   *     consistent failover loses, is at most about this behind an idle table's
   */
  public record Group(
      @NotBlank String name,
      @NotBlank String target,
      @NotEmpty List<@NotBlank String> tables,
      @NotNull @DefaultValue("PT1S") Duration clockSkew,
      String ref,
      @NotNull @DefaultValue("PT5M") Duration tagInterval,
      @NotNull @DefaultValue("P1D") Duration keepTags,
      @NotNull @DefaultValue("PT0S") Duration transactionWindow,
      @NotNull @DefaultValue("PT5S") Duration knownCurrentInterval) {
    public Group {
      tables = List.copyOf(tables);
      ref = ref == null || ref.isBlank() ? name : ref.trim();
      if ("main".equals(ref)) {
        throw new IllegalArgumentException(
            "replicator.groups: group "
                + name
                + " cannot name its tags 'main', the table's branch");
      }
      if (tagInterval.isNegative() || keepTags.isNegative()) {
        throw new IllegalArgumentException(
            "replicator.groups: group " + name + " has a negative tag-interval or keep-tags");
      }
      if (clockSkew.isNegative()) {
        throw new IllegalArgumentException(
            "replicator.groups: group " + name + " has a negative clock-skew " + clockSkew);
      }
      if (transactionWindow.isNegative()) {
        throw new IllegalArgumentException(
            "replicator.groups: group "
                + name
                + " has a negative transaction-window "
                + transactionWindow);
      }
      if (knownCurrentInterval.compareTo(Duration.ofMillis(100)) < 0) {
        throw new IllegalArgumentException(
            "replicator.groups: group "
                + name
                + " has known-current-interval "
                + knownCurrentInterval
                + ": give at least PT0.1S (each record is a write to every replica)");
      }
      for (String table : tables) {
        if (table.indexOf('/') <= 0 || table.endsWith("/")) {
          throw new IllegalArgumentException(
              "replicator.groups: group "
                  + name
                  + " names table '"
                  + table
                  + "': expected <namespace>/<table>, as the status API addresses it");
        }
      }
    }

    /** The group as the engine's orchestration takes it. */
    public GroupSettings settings() {
      return new GroupSettings(
          name, target, tables, ref, clockSkew, tagInterval, keepTags, transactionWindow);
    }
  }
}
