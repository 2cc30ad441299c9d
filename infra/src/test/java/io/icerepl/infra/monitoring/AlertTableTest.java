package io.icerepl.infra.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * infra/README.md's table of alerts is the rules file's: every alert, in the file's order, with its
 * {@code for} duration, so an alert added to the rules cannot be left out of the table.
 */
class AlertTableTest {
  private static final Path RULES = Path.of("monitoring/replicator-alerts.yml");
  private static final Path README = Path.of("README.md");

  @Test
  void theReadmeTableListsEveryAlertOfTheRulesFile() throws IOException {
    Map<String, String> rules = new LinkedHashMap<>();
    JsonNode file = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile());
    for (JsonNode group : file.get("groups")) {
      for (JsonNode rule : group.get("rules")) {
        rules.put(rule.get("alert").asText(), rule.path("for").asText(""));
      }
    }

    assertThat(table()).as("infra/README.md's alert table").containsExactlyEntriesOf(rules);
  }

  /** The rows of the README's table headed {@code | alert | expression | for |}: alert to for. */
  private static Map<String, String> table() throws IOException {
    List<String> lines = Files.readAllLines(README);
    int header = lines.indexOf("| alert | expression | for |");
    assertThat(header).as("the alert table's header in %s", README).isNotNegative();
    Map<String, String> rows = new LinkedHashMap<>();
    for (String line : lines.subList(header + 2, lines.size())) {
      if (!line.startsWith("|")) {
        break;
      }
      List<String> cells = new ArrayList<>(List.of(line.split("\\|", -1)));
      String alert = cells.get(1).strip().replace("`", "");
      rows.put(alert, cells.get(cells.size() - 2).strip());
    }
    return rows;
  }
}
