package io.icerepl.app.engine.batch;

import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.copier.batch.BatchJobs;
import io.icerepl.copier.batch.CompletionReport;
import io.icerepl.copier.batch.CopyJob;
import io.icerepl.copier.batch.JobManifestCsv;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.MissingCopies;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Location;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.path.PathMapping;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pre-copy phase of a backfill through S3 Batch Operations: when source and target are on S3,
 * the path mapping only adds a key prefix, and the byte-for-byte files still missing on the target
 * reach a threshold, an S3 Batch Operations job copies them, and this waits for it. Everything
 * after is the ordinary pass, which copies whatever is still missing or of the wrong length (failed
 * tasks included) and publishes as always; so the job only moves work out of this process, and a
 * job that copied nothing costs time, never correctness.
 *
 * <p>Crash-safe: the job's client request token is a hash of the table, the replica and the source
 * metadata file backfilled, and is written into the job's description. Right after the job is
 * created a marker object in the replica's hidden batch folder records its id. A rerun finds the
 * job by the marker, else by listing jobs with that description, and follows it instead of creating
 * another; AWS answers a repeated token with the same job too.
 */
public record BatchPreCopy(
    BatchOperationsOptions options, BatchJobs jobs, BatchJobListener listener) {
  private static final Logger LOG = LoggerFactory.getLogger(BatchPreCopy.class);

  /**
   * S3PutObjectCopy copies objects up to 5 GiB; larger ones are left to the multipart copy here.
   */
  static final long MAX_OBJECT_BYTES = 5L << 30;

  static final String MANIFEST = "manifest.csv";
  static final String MARKER = "job-id";
  static final String REPORT = "report";

  /**
   * Runs the phase for the first commit of a backfill, if it applies.
   *
   * @param sourceFile the source metadata file the commit replicates
   * @return the job's last progress, empty when no job was used
   * @throws BatchJobFailedException when the job ended Failed or Cancelled
   */
  public Optional<JobProgress> run(
      String table,
      ObjectStore source,
      ObjectStore target,
      String targetLocation,
      String sourceFile,
      MergeResult merge,
      PathMapping mapping,
      LeasedReplica leased)
      throws IOException {
    if (!(source instanceof S3ObjectStore) || !(target instanceof S3ObjectStore targetS3)) {
      LOG.info("{}: no S3 Batch Operations job: source and replica are not both on S3", table);
      return Optional.empty();
    }
    Destination destination;
    try {
      destination = Destination.of(mapping);
    } catch (IllegalArgumentException e) {
      LOG.info("{}: no S3 Batch Operations job, copying here: {}", table, e.getMessage());
      return Optional.empty();
    }
    String token = token(table, targetLocation, sourceFile);
    String folder = ReplicaLayout.batchJobFolder(targetLocation, token);
    String description = "iceberg-replicator backfill " + token;
    Optional<String> jobId = readMarker(target, folder + "/" + MARKER);
    if (jobId.isEmpty()) {
      jobId = jobs.findByDescription(description);
      if (jobId.isPresent()) {
        writeMarker(leased, folder, jobId.get());
      }
    }
    if (jobId.isPresent()) {
      LOG.info("{}: following S3 Batch Operations job {} of an earlier run", table, jobId.get());
    } else {
      Optional<String> created =
          create(
              table,
              source,
              targetS3,
              folder,
              token,
              description,
              destination,
              merge,
              mapping,
              leased);
      if (created.isEmpty()) {
        return Optional.empty();
      }
      jobId = created;
    }
    JobProgress done = follow(table, jobId.get());
    if (!done.status().equals(JobProgress.COMPLETE)) {
      throw new BatchJobFailedException(
          "Cannot backfill table "
              + table
              + " through S3 Batch Operations job "
              + done.jobId()
              + ": "
              + done.status()
              + " ("
              + (done.failureReasons().isEmpty()
                  ? "no reason given"
                  : String.join("; ", done.failureReasons()))
              + "); a rerun follows the same job, whose client token the table, the replica and"
              + " the source metadata file fix: backfill without S3 Batch Operations to copy in"
              + " this process");
    }
    report(table, target, folder, done);
    return Optional.of(done);
  }

  private Optional<String> create(
      String table,
      ObjectStore source,
      S3ObjectStore target,
      String folder,
      String token,
      String description,
      Destination destination,
      MergeResult merge,
      PathMapping mapping,
      LeasedReplica leased)
      throws IOException {
    String manifest = folder + "/" + MANIFEST;
    Counts counts = new Counts();
    try {
      leased.writeFile(
          manifest,
          out -> {
            Writer lines = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            new MissingCopies(source, target)
                .forEach(table, merge, mapping, file -> counts.add(file, destination, lines));
            lines.flush();
            if (!options.worthAJob(counts.files, counts.bytes)) {
              throw new NotWorthAJob();
            }
          },
          "write the manifest of an S3 Batch Operations job");
    } catch (NotWorthAJob e) {
      LOG.info(
          "{}: no S3 Batch Operations job: {} files ({} bytes) to copy are below the thresholds of"
              + " {} files and {} bytes",
          table,
          counts.files,
          counts.bytes,
          options.minFiles(),
          options.minBytes());
      return Optional.empty();
    }
    if (counts.tooLarge > 0) {
      LOG.info(
          "{}: {} files over 5 GiB are left to this process's multipart copy",
          table,
          counts.tooLarge);
    }
    String eTag =
        target
            .eTag(manifest)
            .orElseThrow(() -> new NoSuchFileException(manifest, null, "written, then gone"));
    leased.checkHeld("create an S3 Batch Operations job");
    String jobId =
        jobs.create(
            new CopyJob(
                token,
                description,
                manifest,
                eTag,
                destination.bucket(),
                destination.keyPrefix(),
                folder + "/" + REPORT,
                options.roleArn().orElseThrow(),
                options.priority()));
    writeMarker(leased, folder, jobId);
    LOG.info(
        "{}: S3 Batch Operations job {} copies {} files ({} bytes) listed in {}",
        table,
        jobId,
        counts.files,
        counts.bytes,
        manifest);
    return Optional.of(jobId);
  }

  private JobProgress follow(String table, String jobId) {
    while (true) {
      JobProgress progress = jobs.describe(jobId);
      LOG.info(
          "{}: S3 Batch Operations job {} {}: {} of {} tasks succeeded, {} failed",
          table,
          jobId,
          progress.status(),
          progress.succeeded(),
          progress.total(),
          progress.failed());
      listener.progress(table, progress);
      if (progress.finished()) {
        return progress;
      }
      try {
        Thread.sleep(options.pollInterval().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new UncheckedIOException(
            "Cannot follow S3 Batch Operations job " + jobId + " of table " + table,
            new InterruptedIOException("interrupted"));
      }
    }
  }

  /** Logs what the completion report says; the ordinary pass that follows copies what failed. */
  private static void report(String table, ObjectStore target, String folder, JobProgress done)
      throws IOException {
    CompletionReport report;
    try {
      report = CompletionReport.read(target, folder + "/" + REPORT, done.jobId());
    } catch (NoSuchFileException e) {
      LOG.info("{}: S3 Batch Operations job {} wrote no report", table, done.jobId());
      return;
    }
    if (report.failed() == 0) {
      LOG.info(
          "{}: S3 Batch Operations job {} copied {} files",
          table,
          done.jobId(),
          report.succeeded());
    } else {
      LOG.warn(
          "{}: S3 Batch Operations job {} copied {} files; {} tasks failed, copied by the"
              + " replicator ({}; first {})",
          table,
          done.jobId(),
          report.succeeded(),
          report.failed(),
          report.failuresByCode(),
          report.firstFailed());
    }
  }

  private static Optional<String> readMarker(ObjectStore target, String marker) throws IOException {
    // asked first: under a role that may not list the bucket unscoped, reading a missing key
    // answers 403, not 404
    if (target.length(marker).isEmpty()) {
      return Optional.empty();
    }
    try (InputStream in = target.open(marker)) {
      String id = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      return id.isEmpty() ? Optional.empty() : Optional.of(id);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  private static void writeMarker(LeasedReplica leased, String folder, String jobId)
      throws IOException {
    leased.writeFile(
        folder + "/" + MARKER,
        out -> out.write(jobId.getBytes(StandardCharsets.UTF_8)),
        "record S3 Batch Operations job " + jobId);
  }

  /** The client request token of the job of one backfill commit: the same on every attempt. */
  static String token(String table, String targetLocation, String sourceFile) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  (table + "\n" + targetLocation + "\n" + sourceFile)
                      .getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Where S3PutObjectCopy puts each object: one bucket, and the source key after one prefix. Only a
   * mapping whose every prefix is "the same key with this prefix added" has one.
   */
  record Destination(String bucket, String keyPrefix) {
    static Destination of(PathMapping mapping) {
      Destination found = null;
      for (PathMapping.Prefix prefix : mapping.prefixes()) {
        S3Location from;
        S3Location to;
        try {
          from = S3Location.parse(prefix.source());
          to = S3Location.parse(prefix.target());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "path mapping " + prefix.source() + " -> " + prefix.target() + " is not S3 to S3");
        }
        String fromKey = folder(from.key());
        String toKey = folder(to.key());
        if (!toKey.endsWith(fromKey)) {
          throw new IllegalArgumentException(
              "path mapping "
                  + prefix.source()
                  + " -> "
                  + prefix.target()
                  + " is not the same key with a prefix added, which S3 Batch Operations copies"
                  + " need");
        }
        Destination here =
            new Destination(to.bucket(), toKey.substring(0, toKey.length() - fromKey.length()));
        if (found != null && !found.equals(here)) {
          throw new IllegalArgumentException(
              "path mappings put files in "
                  + found
                  + " and "
                  + here
                  + ", and an S3 Batch Operations job copies into one bucket with one prefix");
        }
        found = here;
      }
      if (found == null) {
        throw new IllegalArgumentException("no path mapping");
      }
      return found;
    }

    private static String folder(String key) {
      return key.isEmpty() || key.endsWith("/") ? key : key + "/";
    }

    /** Whether S3PutObjectCopy of {@code file} writes exactly its replica path. */
    boolean puts(FileCopy file) {
      S3Location from = S3Location.parse(file.source());
      S3Location to = S3Location.parse(file.target());
      return to.bucket().equals(bucket) && to.key().equals(keyPrefix + from.key());
    }

    @Override
    public String toString() {
      return "s3://" + bucket + "/" + keyPrefix;
    }
  }

  /** The manifest's files and bytes, written as they come. */
  private static final class Counts {
    long files;
    long bytes;
    long tooLarge;

    void add(FileCopy file, Destination destination, Writer lines) {
      if (file.expectedSize() > MAX_OBJECT_BYTES || !destination.puts(file)) {
        tooLarge += file.expectedSize() > MAX_OBJECT_BYTES ? 1 : 0;
        return;
      }
      S3Location from = S3Location.parse(file.source());
      try {
        lines.write(JobManifestCsv.line(from.bucket(), from.key()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      files++;
      bytes += Math.max(0, file.expectedSize());
    }
  }

  /** Thrown out of the manifest's writer so that nothing is uploaded below the thresholds. */
  private static final class NotWorthAJob extends RuntimeException {
    NotWorthAJob() {
      super(null, null, false, false);
    }
  }
}
