package io.icerepl.app.engine.batch;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.icerepl.copier.batch.BatchJobs;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3control.S3ControlClient;

/**
 * S3 Control on loopback for S3 Batch Operations: answers CreateJob, DescribeJob and ListJobs with
 * the XML of a recorded job lifecycle (New, Preparing, Active with progress, then Complete or
 * Failed; {@code src/test/resources/batch-operations}), and records every request. Its "engine"
 * does what the job asks on an S3 of the test: reads the CSV manifest (checking its ETag as S3
 * does), copies each object with CopyObject into the target bucket under the prefix, fails the
 * tasks of keys it is told to fail, and writes a completion report in AWS's format.
 */
final class RecordedS3Control implements AutoCloseable {
  static final String ACCOUNT = "111122223333";
  static final String ROLE = "arn:aws:iam::111122223333:role/replicator-batch-operations";

  /** One request as it arrived. */
  record Request(
      String method, String path, String query, Map<String, String> headers, String body) {}

  private final HttpServer server;
  private final S3Client s3;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Job> jobs = new LinkedHashMap<>();
  private final List<String> keysToFail = new CopyOnWriteArrayList<>();
  private volatile boolean endFailed;

  RecordedS3Control(S3Client s3) throws IOException {
    this.s3 = s3;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** The real SDK client, reaching this server. */
  S3ControlClient client() {
    return S3ControlClient.builder()
        .endpointOverride(endpoint())
        // the endpoint rules put the account id before even an overridden host name
        .endpointProvider(BatchJobs.endpointAt(endpoint()))
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local-secret")))
        .overrideConfiguration(
            c -> c.putAdvancedOption(SdkAdvancedClientOption.DISABLE_HOST_PREFIX_INJECTION, true))
        .build();
  }

  /** Fails the task of every object whose source key ends with {@code suffix}. */
  void failTasksOfKeysEndingWith(String suffix) {
    keysToFail.add(suffix);
  }

  /** Jobs created from now on end Failed instead of running. */
  void endJobsFailed() {
    endFailed = true;
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  List<Request> createJobRequests() {
    return requests.stream().filter(r -> r.method().equals("POST")).toList();
  }

  /** Jobs created, a repeated client token counted once. */
  synchronized int jobsCreated() {
    return jobs.size();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private synchronized void handle(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String path = exchange.getRequestURI().getPath();
    Map<String, String> headers = new LinkedHashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
    requests.add(
        new Request(
            exchange.getRequestMethod(), path, exchange.getRequestURI().getQuery(), headers, body));
    String answer;
    if (exchange.getRequestMethod().equals("POST") && path.equals("/v20180820/jobs")) {
      answer = createJob(body);
    } else if (exchange.getRequestMethod().equals("GET") && path.equals("/v20180820/jobs")) {
      StringBuilder members = new StringBuilder();
      for (Job job : jobs.values()) {
        members.append(fill("list-jobs-member.xml", job.fields()));
      }
      answer = fill("list-jobs.xml", Map.of("Jobs", members.toString()));
    } else if (exchange.getRequestMethod().equals("GET") && path.startsWith("/v20180820/jobs/")) {
      Job job = jobs.get(path.substring("/v20180820/jobs/".length()));
      if (job == null) {
        send(exchange, 404, "<Error><Code>NoSuchJob</Code></Error>");
        return;
      }
      job.advance();
      answer = fill("describe-job.xml", job.fields());
    } else {
      send(exchange, 400, "<Error><Code>InvalidRequest</Code></Error>");
      return;
    }
    send(exchange, 200, answer);
  }

  private String createJob(String body) {
    Document xml = parse(body);
    String token = text(xml, "ClientRequestToken");
    for (Job job : jobs.values()) {
      if (job.token.equals(token)) {
        return fill("create-job.xml", Map.of("JobId", job.id));
      }
    }
    Job job = new Job(UUID.randomUUID().toString(), token, xml, endFailed);
    jobs.put(job.id, job);
    return fill("create-job.xml", Map.of("JobId", job.id));
  }

  private void send(HttpExchange exchange, int status, String xml) throws IOException {
    byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/xml");
    exchange.getResponseHeaders().add("x-amz-request-id", "recorded");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private final class Job {
    final String id;
    final String token;
    final Document request;
    final boolean fails;
    int described;
    String status = "New";
    long total;
    long succeeded;
    long failed;

    Job(String id, String token, Document request, boolean fails) {
      this.id = id;
      this.token = token;
      this.request = request;
      this.fails = fails;
    }

    /** One step of the recorded lifecycle per DescribeJob. */
    void advance() {
      described++;
      if (described == 2) {
        status = "Preparing";
      } else if (described == 3) {
        if (fails) {
          status = "Failed";
        } else {
          status = "Active";
          run();
        }
      } else if (described >= 4 && status.equals("Active")) {
        status = "Complete";
        writeReport();
      }
    }

    private final List<String> results = new ArrayList<>();

    private void run() {
      String[] manifest = arnKey(text(request, "ObjectArn"));
      String eTag = s3.headObject(b -> b.bucket(manifest[0]).key(manifest[1])).eTag();
      if (!eTag.replace("\"", "").equals(text(request, "ETag"))) {
        throw new IllegalStateException("manifest ETag " + eTag + " is not the request's");
      }
      String targetBucket = arnKey(text(request, "TargetResource") + "/")[0];
      String prefix = text(request, "TargetKeyPrefix");
      String csv = s3.getObjectAsBytes(b -> b.bucket(manifest[0]).key(manifest[1])).asUtf8String();
      for (String line : csv.split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        total++;
        String bucket = line.substring(0, line.indexOf(','));
        String encoded = line.substring(line.indexOf(',') + 1);
        String key = percentDecoded(encoded);
        if (keysToFail.stream().anyMatch(key::endsWith)) {
          failed++;
          results.add(bucket + "," + encoded + ",,failed,403,AccessDenied,\"Access Denied\"");
          continue;
        }
        s3.copyObject(
            b ->
                b.sourceBucket(bucket)
                    .sourceKey(key)
                    .destinationBucket(targetBucket)
                    .destinationKey((prefix == null ? "" : prefix) + key));
        succeeded++;
        results.add(bucket + "," + encoded + ",,succeeded,200,,Successful");
      }
    }

    private void writeReport() {
      String[] report = arnKey(text(request, "Bucket") + "/");
      String folder = text(request, "Prefix") + "/job-" + id;
      String resultKey = folder + "/results/" + UUID.randomUUID() + ".csv";
      s3.putObject(
          b -> b.bucket(report[0]).key(resultKey),
          software.amazon.awssdk.core.sync.RequestBody.fromString(
              String.join("\n", results) + "\n"));
      String manifest =
          "{\"Format\":\"Report_CSV_20180820\",\"ReportCreationDate\":\"2026-11-30T22:45:00.000Z\","
              + "\"Results\":[{\"TaskExecutionStatus\":\"succeeded\",\"Bucket\":\""
              + report[0]
              + "\",\"MD5Checksum\":\"83b1c4cbe93fc893f54053697e10fd6e\",\"Key\":\""
              + resultKey
              + "\"}],\"ReportSchema\":\"Bucket, Key, VersionId, TaskStatus, ErrorCode,"
              + " HTTPStatusCode, ResultMessage\"}";
      s3.putObject(
          b -> b.bucket(report[0]).key(folder + "/manifest.json"),
          software.amazon.awssdk.core.sync.RequestBody.fromString(manifest));
    }

    Map<String, String> fields() {
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put("JobId", id);
      fields.put("Description", text(request, "Description"));
      fields.put("Status", status);
      fields.put("Total", Long.toString(total));
      fields.put("Succeeded", Long.toString(succeeded));
      fields.put("Failed", Long.toString(failed));
      fields.put("ManifestETag", text(request, "ETag"));
      fields.put("ManifestArn", text(request, "ObjectArn"));
      fields.put("TargetResource", text(request, "TargetResource"));
      fields.put("ReportBucket", text(request, "Bucket"));
      fields.put("ReportPrefix", text(request, "Prefix"));
      fields.put("RoleArn", text(request, "RoleArn"));
      fields.put(
          "FailureReasons",
          status.equals("Failed")
              ? fill(
                  "failure-reason.xml",
                  Map.of(
                      "FailureCode",
                      "AccessDenied",
                      "FailureReason",
                      "Reading the manifest is forbidden"))
              : "");
      return fields;
    }
  }

  /** Bucket and key of {@code arn:aws:s3:::bucket/key}. */
  private static String[] arnKey(String arn) {
    String rest = arn.substring(arn.indexOf(":::") + 3);
    int slash = rest.indexOf('/');
    return new String[] {rest.substring(0, slash), rest.substring(slash + 1)};
  }

  /**
   * A manifest key decoded as S3 reads it: RFC 3986 percent-decoding of UTF-8 bytes, a {@code +}
   * staying a plus. The fake's own, not the replicator's decoder, so an encoder that spells a key
   * in a way S3 reads differently shows here.
   */
  static String percentDecoded(String encoded) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%') {
        bytes.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        throw new IllegalStateException("manifest key " + encoded + " is not URL-encoded");
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  static Document parse(String xml) {
    try {
      return DocumentBuilderFactory.newInstance()
          .newDocumentBuilder()
          .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot parse " + xml, e);
    }
  }

  /** The text of the first element named {@code name}, null when there is none. */
  static String text(Document xml, String name) {
    NodeList found = xml.getElementsByTagName(name);
    return found.getLength() == 0 ? null : ((Element) found.item(0)).getTextContent();
  }

  /** The text of the first element {@code name} inside the first element {@code parent}. */
  static String text(Document xml, String parent, String name) {
    NodeList found =
        ((Element) xml.getElementsByTagName(parent).item(0)).getElementsByTagName(name);
    return found.getLength() == 0 ? null : ((Element) found.item(0)).getTextContent();
  }

  private static String fill(String resource, Map<String, String> fields) {
    String template;
    try (InputStream in =
        RecordedS3Control.class.getResourceAsStream("/batch-operations/" + resource)) {
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Map.Entry<String, String> field : fields.entrySet()) {
      template =
          template.replace(
              "${" + field.getKey() + "}", field.getValue() == null ? "" : field.getValue());
    }
    return template;
  }
}
