package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The status page as a real browser renders it: Chromium, headless, where one is installed. */
final class HeadlessChromium {
  private HeadlessChromium() {}

  /** The browser on the {@code PATH}, if any ({@code .ci/run} installs one). */
  static Optional<String> find() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of("chromium", "chromium-browser", "google-chrome")
        .flatMap(name -> Stream.of(path.split(":")).map(d -> Path.of(d, name)))
        .filter(Files::isExecutable)
        .map(Path::toString)
        .findFirst();
  }

  /** The page's DOM once its fetches and rendering are done, with the API token in the link. */
  static String dom(String chromium, Path dir, int port) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + dir.resolve("chromium-profile"),
                "--virtual-time-budget=10000",
                "--dump-dom",
                "http://127.0.0.1:" + port + "/#token=" + RunningService.TOKEN));
    Path out = Files.createTempFile(dir, "chromium", ".out");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
    return Files.readString(out, StandardCharsets.UTF_8);
  }
}
