package io.icerepl.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a template's intrinsic functions point at: Ref, Fn::GetAtt, ${...} in Fn::Sub, Fn::If and
 * Condition names, DependsOn. Reports names nobody declared, and parameters nobody uses.
 */
final class References {

  static final Set<String> PSEUDO_PARAMETERS =
      Set.of(
          "AWS::AccountId",
          "AWS::NoValue",
          "AWS::NotificationARNs",
          "AWS::Partition",
          "AWS::Region",
          "AWS::StackId",
          "AWS::StackName",
          "AWS::URLSuffix");

  private static final Pattern SUB_VARIABLE = Pattern.compile("\\$\\{(?!!)([^}]+)}");

  private final Set<String> parameters;
  private final Set<String> resources;
  private final Set<String> conditions;
  private final List<String> undeclared = new ArrayList<>();
  private final Set<String> used = new HashSet<>();

  private References(Template template) {
    parameters = template.section("Parameters").keySet();
    resources = template.section("Resources").keySet();
    conditions = template.section("Conditions").keySet();
    walk(template.root(), "", Set.of());
  }

  static References of(Template template) {
    return new References(template);
  }

  List<String> undeclared() {
    return List.copyOf(undeclared);
  }

  List<String> unusedParameters() {
    return parameters.stream().filter(p -> !used.contains(p)).sorted().toList();
  }

  private void walk(JsonNode node, String path, Set<String> subLocals) {
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), path + "[" + i + "]", subLocals);
      }
      return;
    }
    if (!node.isObject()) {
      return;
    }
    for (Map.Entry<String, JsonNode> field : iterable(node)) {
      String key = field.getKey();
      JsonNode value = field.getValue();
      String at = path + "/" + key;
      switch (key) {
        case "Ref" -> name(value.asText(), at, subLocals);
        case "Fn::GetAtt" ->
            resource(
                value.isArray() ? value.get(0).asText() : value.asText().split("\\.", 2)[0], at);
        case "Fn::Sub" -> sub(value, at, subLocals);
        case "Fn::If" -> condition(value.get(0).asText(), at);
        case "Condition" -> {
          if (value.isTextual()) {
            condition(value.asText(), at);
          }
        }
        case "DependsOn" -> Template.renderAll(value).forEach(r -> resource(r, at));
        default -> {}
      }
      if (!key.equals("Fn::Sub")) {
        walk(value, at, subLocals);
      }
    }
  }

  private void sub(JsonNode value, String at, Set<String> outerLocals) {
    String text;
    Set<String> locals = new HashSet<>(outerLocals);
    if (value.isArray()) {
      text = value.get(0).asText();
      value.get(1).fieldNames().forEachRemaining(locals::add);
      walk(value.get(1), at, outerLocals);
    } else {
      text = value.asText();
    }
    Matcher variables = SUB_VARIABLE.matcher(text);
    while (variables.find()) {
      String variable = variables.group(1);
      if (locals.contains(variable)) {
        continue;
      }
      int dot = variable.indexOf('.');
      if (dot > 0 && !variable.startsWith("AWS::")) {
        resource(variable.substring(0, dot), at);
      } else {
        name(variable, at, locals);
      }
    }
  }

  private void name(String name, String at, Set<String> locals) {
    used.add(name);
    if (!parameters.contains(name)
        && !resources.contains(name)
        && !PSEUDO_PARAMETERS.contains(name)
        && !locals.contains(name)) {
      undeclared.add(at + ": " + name);
    }
  }

  private void resource(String name, String at) {
    if (!resources.contains(name)) {
      undeclared.add(at + ": resource " + name);
    }
  }

  private void condition(String name, String at) {
    if (!conditions.contains(name)) {
      undeclared.add(at + ": condition " + name);
    }
  }

  private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode node) {
    return node::fields;
  }
}
