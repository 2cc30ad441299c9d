package io.icerepl.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The LocalStack compose file and init script (local-stack/) set up what the templates set up on
 * AWS. Read as text: no Docker here to run them.
 */
class LocalStackSetupTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Path LOCAL_STACK = Path.of("..", "local-stack");
  private static final Path COMPOSE = LOCAL_STACK.resolve("docker-compose.yml");
  private static final Path INIT_SCRIPT = LOCAL_STACK.resolve("init/ready.d/10-replicator.sh");
  private static final Path APP_RESOURCES =
      Path.of("..", "replicator-app", "src", "main", "resources");

  @Test
  void composeIsHealthyOnlyOnceTheInitScriptsHaveRun() throws IOException {
    JsonNode test =
        YAML.readTree(Files.readString(COMPOSE))
            .path("services")
            .path("localstack")
            .path("healthcheck")
            .path("test");
    String command = String.join(" ", Template.renderAll(test));

    assertThat(command)
        .contains("/_localstack/init/ready")
        .contains("\"completed\": true")
        .contains("ERROR");
    assertThat(
            YAML.readTree(Files.readString(COMPOSE))
                .path("services")
                .path("localstack")
                .path("volumes")
                .get(0)
                .asText())
        .startsWith("./init/ready.d:/etc/localstack/init/ready.d");
  }

  @Test
  void theInitScriptNotifiesWhatTheTemplateNotifies() throws IOException {
    String script = Files.readString(INIT_SCRIPT);
    Matcher heredoc =
        Pattern.compile("NOTIFICATIONS=\\$\\(cat <<EOF\\n(.*?)\\nEOF\\n\\)", Pattern.DOTALL)
            .matcher(script);
    assertThat(heredoc.find()).as("the notification configuration as a heredoc").isTrue();
    Matcher prefixDefault =
        Pattern.compile("SOURCE_PREFIX=\"\\$\\{SOURCE_PREFIX:-([^}]*)}\"").matcher(script);
    assertThat(prefixDefault.find()).as("SOURCE_PREFIX with a default").isTrue();
    JsonNode configuration =
        new ObjectMapper()
            .readTree(
                heredoc
                    .group(1)
                    .replace(
                        "${QUEUE_ARN}",
                        "arn:aws:sqs:us-east-1:000000000000:iceberg-replicator-events")
                    .replace("${SOURCE_PREFIX}", prefixDefault.group(1)));

    Template template = Template.load(Template.SOURCE_NOTIFICATIONS);
    String templatePrefix =
        template.section("Parameters").get("SourcePrefix").path("Default").asText();
    Set<List<String>> expected = new HashSet<>();
    for (JsonNode c :
        template
            .properties("SourceBucket")
            .path("NotificationConfiguration")
            .path("Fn::If")
            .get(1)
            .path("QueueConfigurations")) {
      expected.add(
          rules(
              c.path("Filter").path("S3Key").path("Rules"),
              "${SourcePrefix}",
              templatePrefix,
              c.path("Event").asText()));
    }
    Set<List<String>> actual = new HashSet<>();
    for (JsonNode c : configuration.path("QueueConfigurations")) {
      assertThat(c.path("Events")).hasSize(1);
      actual.add(
          rules(
              c.path("Filter").path("Key").path("FilterRules"),
              "",
              "",
              c.path("Events").get(0).asText()));
    }
    assertThat(actual).isEqualTo(expected).hasSize(3);
  }

  @Test
  void theComposeFileNamesAProfileThatExists() throws IOException {
    Matcher named = Pattern.compile("\"([a-z0-9-]+)\" profile").matcher(Files.readString(COMPOSE));
    assertThat(named.find()).as("the compose file names a profile").isTrue();
    Path profile = APP_RESOURCES.resolve("application-" + named.group(1) + ".yml");
    assertThat(profile).exists();

    JsonNode settings = YAML.readTree(Files.readString(profile));
    assertThat(settings.path("replicator").path("s3").path("source").path("endpoint").asText())
        .isEqualTo("http://localhost:4566");
    assertThat(settings.path("replicator").path("s3").path("target").path("endpoint").asText())
        .isEqualTo("http://localhost:4566");
    assertThat(
            settings.path("spring").path("cloud").path("aws").path("sqs").path("endpoint").asText())
        .isEqualTo("http://localhost:4566");
    String script = Files.readString(INIT_SCRIPT);
    assertThat(script)
        .contains(
            "QUEUE=\"${QUEUE:-"
                + settings.path("replicator").path("sqs").path("queue").asText()
                + "}\"");
    assertThat(settings.path("replicator").path("rules").get(0).path("source").asText())
        .isEqualTo(
            "s3://"
                + scriptDefault(script, "SOURCE_BUCKET")
                + "/"
                + scriptDefault(script, "SOURCE_PREFIX").replaceAll("/$", ""));
  }

  /** Event, then prefix and suffix values, with the template's prefix reference resolved. */
  private static List<String> rules(JsonNode rules, String reference, String value, String event) {
    String prefix = null;
    String suffix = null;
    for (JsonNode rule : rules) {
      String v = Template.render(rule.path("Value"));
      if (rule.path("Name").asText().equals("prefix")) {
        prefix = v.equals(reference) && !reference.isEmpty() ? value : v;
      } else if (rule.path("Name").asText().equals("suffix")) {
        suffix = v;
      }
    }
    return List.of(event, String.valueOf(prefix), String.valueOf(suffix));
  }

  private static String scriptDefault(String script, String variable) {
    Matcher m = Pattern.compile(variable + "=\"\\$\\{" + variable + ":-([^}]*)}\"").matcher(script);
    assertThat(m.find()).as(variable).isTrue();
    return m.group(1);
  }
}
