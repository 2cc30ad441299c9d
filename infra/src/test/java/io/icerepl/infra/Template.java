package io.icerepl.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/**
 * A parsed CloudFormation template. The templates use the long form of intrinsic functions ({@code
 * Ref:}, {@code Fn::Sub:}), so plain Jackson YAML reads them without custom tags.
 */
record Template(String name, String text, JsonNode root) {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static final String REPLICATOR = "replicator.yaml";
  static final String SOURCE_NOTIFICATIONS = "source-notifications.yaml";

  /** Surefire runs with the module directory as working directory. */
  static Template load(String fileName) {
    return read(Path.of("cloudformation", fileName));
  }

  static Template loadTestResource(String fileName) {
    return read(Path.of("src", "test", "resources", fileName));
  }

  private static Template read(Path path) {
    try {
      String text = Files.readString(path);
      return new Template(path.getFileName().toString(), text, YAML.readTree(text));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read template " + path + ": " + e.getMessage(), e);
    }
  }

  Map<String, JsonNode> section(String section) {
    Map<String, JsonNode> entries = new LinkedHashMap<>();
    root.path(section).fields().forEachRemaining(e -> entries.put(e.getKey(), e.getValue()));
    return entries;
  }

  Map<String, JsonNode> resources() {
    return section("Resources");
  }

  JsonNode resource(String logicalId) {
    JsonNode resource = root.path("Resources").path(logicalId);
    if (resource.isMissingNode()) {
      throw new AssertionError(name + " declares no resource " + logicalId);
    }
    return resource;
  }

  JsonNode properties(String logicalId) {
    return resource(logicalId).path("Properties");
  }

  Map<String, JsonNode> resourcesOfType(String type) {
    Map<String, JsonNode> matching = new LinkedHashMap<>();
    resources()
        .forEach(
            (id, r) -> {
              if (type.equals(r.path("Type").asText())) {
                matching.put(id, r);
              }
            });
    return matching;
  }

  /** The single resource of a type; fails when there is none or more than one. */
  String onlyResourceOfType(String type) {
    List<String> ids = List.copyOf(resourcesOfType(type).keySet());
    if (ids.size() != 1) {
      throw new AssertionError(name + " should declare one " + type + " but declares " + ids);
    }
    return ids.get(0);
  }

  /**
   * Every policy statement granted to a role: inline policies of the role and the AWS::IAM::Policy
   * / ManagedPolicy resources that attach to it with {@code Ref: <role>}.
   */
  List<Statement> statementsOfRole(String roleId) {
    List<Statement> statements = new ArrayList<>();
    for (JsonNode inline : resource(roleId).path("Properties").path("Policies")) {
      statements.addAll(
          Statement.of(
              roleId + "/" + inline.path("PolicyName").asText(), inline.path("PolicyDocument")));
    }
    resources()
        .forEach(
            (id, r) -> {
              String type = r.path("Type").asText();
              if (type.equals("AWS::IAM::Policy") || type.equals("AWS::IAM::ManagedPolicy")) {
                boolean attached =
                    StreamSupport.stream(r.path("Properties").path("Roles").spliterator(), false)
                        .anyMatch(role -> roleId.equals(role.path("Ref").asText()));
                if (attached) {
                  statements.addAll(Statement.of(id, r.path("Properties").path("PolicyDocument")));
                }
              }
            });
    return statements;
  }

  /**
   * A readable form of a value that may hold intrinsic functions: {@code Ref: X} is {@code ${X}},
   * {@code Fn::GetAtt: [A, B]} is {@code ${A.B}}, {@code Fn::Sub} is its string.
   */
  static String render(JsonNode value) {
    if (value.isTextual() || value.isNumber() || value.isBoolean()) {
      return value.asText();
    }
    if (value.has("Ref")) {
      return "${" + value.get("Ref").asText() + "}";
    }
    if (value.has("Fn::GetAtt")) {
      JsonNode getAtt = value.get("Fn::GetAtt");
      return getAtt.isArray()
          ? "${" + getAtt.get(0).asText() + "." + getAtt.get(1).asText() + "}"
          : "${" + getAtt.asText() + "}";
    }
    if (value.has("Fn::Sub")) {
      JsonNode sub = value.get("Fn::Sub");
      return sub.isArray() ? sub.get(0).asText() : sub.asText();
    }
    return value.toString();
  }

  /** A scalar or a list, as the list of its rendered values. */
  static List<String> renderAll(JsonNode value) {
    List<String> rendered = new ArrayList<>();
    if (value.isArray()) {
      value.forEach(v -> rendered.add(render(v)));
    } else if (!value.isMissingNode() && !value.isNull()) {
      rendered.add(render(value));
    }
    return rendered;
  }
}
