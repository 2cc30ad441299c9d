package io.icerepl.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Azurite's Blob service (Microsoft's Azure Storage emulator, a Node.js program) on a free loopback
 * port, in a temporary folder, for tests of the Azure store. Azurite is not a Java library, so this
 * runs its {@code azurite-blob} command: the one {@code AZURITE_BLOB} names, else the one {@code
 * .ci/run} installs under {@code local-stack/azurite} (found from the working directory upwards),
 * else one on the PATH. Tests call {@link #available()} first and skip without it.
 *
 * <p>Its single account is the emulator's well-known {@code devstoreaccount1}, addressed by path
 * ({@code http://127.0.0.1:<port>/devstoreaccount1}).
 */
public final class EmbeddedAzurite implements AutoCloseable {
  public static final String ACCOUNT_NAME = "devstoreaccount1";

  /** The emulator's published key of {@code devstoreaccount1} (Azurite's README), not a secret. */
  public static final String ACCOUNT_KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  private static final String INSTALLED = "local-stack/azurite/node_modules/.bin/azurite-blob";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final String API_VERSION = "2021-08-06";

  private final Process process;
  private final Path folder;
  private final int port;

  private final Thread onExit;

  private EmbeddedAzurite(Process process, Path folder, int port) {
    this.process = process;
    this.folder = folder;
    this.port = port;
    // a test JVM that exits without closing it (a killed build) leaves no emulator running
    this.onExit = new Thread(this::stop, "azurite-stop");
    Runtime.getRuntime().addShutdownHook(onExit);
  }

  /** Whether an {@code azurite-blob} command was found, and Node.js to run it when it needs one. */
  public static boolean available() {
    return command().isPresent();
  }

  /** Where {@link #start()} would find {@code azurite-blob}, empty when nowhere. */
  public static Optional<Path> command() {
    String named = System.getenv("AZURITE_BLOB");
    if (named != null && !named.isBlank()) {
      Path path = Paths.get(named);
      return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
    }
    for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path installed = dir.resolve(INSTALLED);
      if (Files.isExecutable(installed)) {
        return onPath("node").isPresent() ? Optional.of(installed) : Optional.empty();
      }
    }
    return onPath("azurite-blob");
  }

  private static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    return Stream.of(path.split(java.io.File.pathSeparator))
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Paths.get(dir, name))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /**
   * Starts Azurite's Blob service on a free loopback port and waits until it answers.
   *
   * @throws IllegalStateException when there is no Azurite, or it did not answer within 30 s (with
   *     the end of its output)
   */
  public static EmbeddedAzurite start() {
    Path command =
        command()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "Cannot start Azurite: no azurite-blob (set AZURITE_BLOB, or run npm"
                            + " install --prefix local-stack/azurite azurite, or put it on the"
                            + " PATH), or no node to run it"));
    return LoopbackPort.start("Azurite", port -> start(command, port));
  }

  private static EmbeddedAzurite start(Path command, int port) throws IOException {
    Path folder = Files.createTempDirectory("azurite-");
    Path log = folder.resolve("azurite.log");
    Path data = Files.createDirectory(folder.resolve("data"));
    Process process =
        new ProcessBuilder(
                List.of(
                    command.toString(),
                    "--blobHost",
                    "127.0.0.1",
                    "--blobPort",
                    Integer.toString(port),
                    "--location",
                    data.toString(),
                    "--skipApiVersionCheck",
                    "--loose",
                    "--silent"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    EmbeddedAzurite azurite = new EmbeddedAzurite(process, folder, port);
    try {
      azurite.awaitAnswer(log);
      return azurite;
    } catch (IOException | RuntimeException e) {
      azurite.close();
      throw e;
    }
  }

  private void awaitAnswer(Path log) throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        // not listening yet
      }
      if (!process.isAlive()) {
        String output = tail(log);
        if (output.contains("EADDRINUSE")) {
          throw new BindException("Azurite's port " + port + " is taken: " + output);
        }
        throw new IllegalStateException(
            "Azurite exited with " + process.exitValue() + " before it answered: " + output);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "Azurite did not answer on port "
                + port
                + " within "
                + START_TIMEOUT.toSeconds()
                + " s: "
                + tail(log));
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for Azurite", e);
      }
    }
  }

  private static String tail(Path log) {
    try {
      String output = Files.readString(log, StandardCharsets.UTF_8).strip();
      return output.isEmpty()
          ? "(no output)"
          : output.substring(Math.max(0, output.length() - 2_000));
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  /** The account's Blob endpoint, {@code http://127.0.0.1:<port>/devstoreaccount1}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port + "/" + ACCOUNT_NAME;
  }

  public String accountName() {
    return ACCOUNT_NAME;
  }

  public String accountKey() {
    return ACCOUNT_KEY;
  }

  /** A connection string for this emulator's account, as the Azure SDKs read it. */
  public String connectionString() {
    return "DefaultEndpointsProtocol=http;AccountName="
        + ACCOUNT_NAME
        + ";AccountKey="
        + ACCOUNT_KEY
        + ";BlobEndpoint="
        + endpoint()
        + ";";
  }

  /**
   * Creates a container (Create Container, signed with the account key: no Azure SDK needed here).
   */
  public void createContainer(String name) {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    String stringToSign =
        "PUT\n\n\n\n\n\n\n\n\n\n\n\n"
            + "x-ms-date:"
            + date
            + "\nx-ms-version:"
            + API_VERSION
            + "\n/"
            + ACCOUNT_NAME
            + "/"
            + ACCOUNT_NAME
            + "/"
            + name
            + "\nrestype:container";
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(endpoint() + "/" + name + "?restype=container"))
            .timeout(Duration.ofSeconds(30))
            .header("x-ms-date", date)
            .header("x-ms-version", API_VERSION)
            .header("Authorization", "SharedKey " + ACCOUNT_NAME + ":" + sign(stringToSign))
            .PUT(HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<String> response;
    try {
      response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create container " + name + " on Azurite", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted creating container " + name, e);
    }
    if (response.statusCode() != 201) {
      throw new IllegalStateException(
          "Cannot create container "
              + name
              + " on Azurite: status "
              + response.statusCode()
              + " "
              + response.body());
    }
  }

  private static String sign(String stringToSign) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(Base64.getDecoder().decode(ACCOUNT_KEY), "HmacSHA256"));
      return Base64.getEncoder()
          .encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  /**
   * Kills Azurite and everything it started at once (on SIGTERM it takes about 30 s to exit), then
   * deletes its folder.
   */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to
    }
    stop();
  }

  private void stop() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder left behind is not worth failing a test run
    }
  }
}
