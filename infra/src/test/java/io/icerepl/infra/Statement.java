package io.icerepl.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** One IAM policy statement, its actions and resources rendered by {@link Template#render}. */
record Statement(
    String policy,
    String sid,
    String effect,
    List<String> actions,
    List<String> resources,
    JsonNode condition,
    JsonNode principal) {

  static List<Statement> of(String policy, JsonNode document) {
    List<Statement> statements = new ArrayList<>();
    JsonNode raw = document.path("Statement");
    List<JsonNode> nodes = new ArrayList<>();
    if (raw.isArray()) {
      raw.forEach(nodes::add);
    } else if (raw.isObject()) {
      nodes.add(raw);
    }
    for (JsonNode s : nodes) {
      statements.add(
          new Statement(
              policy,
              s.path("Sid").asText(""),
              s.path("Effect").asText(),
              List.copyOf(Template.renderAll(s.path("Action"))),
              List.copyOf(Template.renderAll(s.path("Resource"))),
              s.path("Condition"),
              s.path("Principal")));
    }
    return statements;
  }

  boolean allows() {
    return effect.equals("Allow");
  }

  boolean hasActionOf(String service) {
    return actions.stream().anyMatch(a -> a.startsWith(service + ":"));
  }

  @Override
  public String toString() {
    return policy
        + (sid.isEmpty() ? "" : "/" + sid)
        + " "
        + effect
        + " "
        + actions
        + " on "
        + resources;
  }
}
