package io.icerepl.app.service;

import java.util.Set;
import java.util.TreeSet;

/**
 * The metric names a PromQL expression selects, or a Grafana {@code label_values(metric, label)}
 * query: every identifier that is not a function or aggregation (followed by {@code (}, or by
 * {@code by} or {@code without}), a keyword, a grouping or matching label list, a label matcher, a
 * string, a number, a duration or a Grafana variable.
 */
final class PromQlMetricNames {
  private static final Set<String> LABEL_LISTS =
      Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
  private static final Set<String> KEYWORDS =
      Set.of("offset", "bool", "and", "or", "unless", "atan2", "inf", "nan");

  private PromQlMetricNames() {}

  static Set<String> of(String expression) {
    Set<String> names = new TreeSet<>();
    collect(expression, names);
    return names;
  }

  private static void collect(String e, Set<String> names) {
    int i = 0;
    while (i < e.length()) {
      char c = e.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = afterString(e, i);
      } else if (c == '{') {
        i = after(e, i, '{', '}');
      } else if (c == '[') {
        i = after(e, i, '[', ']');
      } else if (c == '$') {
        i = e.startsWith("${", i) ? after(e, i + 1, '{', '}') : identifierEnd(e, i + 1);
      } else if (Character.isDigit(c) || c == '.') {
        // a number or a duration: 0.99, 1e3, 5m
        i = identifierEnd(e, i + 1);
      } else if (isIdentifierStart(c)) {
        int end = identifierEnd(e, i);
        String word = e.substring(i, end);
        int next = end;
        while (next < e.length() && Character.isWhitespace(e.charAt(next))) {
          next++;
        }
        String following = e.substring(next, identifierEnd(e, next));
        boolean call =
            (next < e.length() && e.charAt(next) == '(')
                || following.equals("by")
                || following.equals("without");
        if (LABEL_LISTS.contains(word)) {
          i = call ? after(e, next, '(', ')') : end;
        } else if (call && word.equals("label_values")) {
          // label_values(metric, label) or label_values(label): only a metric before the last comma
          int close = after(e, next, '(', ')') - 1;
          int comma = lastTopLevelComma(e, next + 1, close);
          if (comma > 0) {
            collect(e.substring(next + 1, comma), names);
          }
          i = close + 1;
        } else {
          if (!call && !KEYWORDS.contains(word.toLowerCase())) {
            names.add(word);
          }
          i = end;
        }
      } else {
        i++;
      }
    }
  }

  private static boolean isIdentifierStart(char c) {
    return Character.isLetter(c) || c == '_' || c == ':';
  }

  private static int identifierEnd(String e, int from) {
    int i = from;
    while (i < e.length()
        && (Character.isLetterOrDigit(e.charAt(i)) || e.charAt(i) == '_' || e.charAt(i) == ':')) {
      i++;
    }
    return i;
  }

  /** The index after the bracket closing the one at {@code open}, past strings inside. */
  private static int after(String e, int open, char opening, char closing) {
    int depth = 0;
    int i = open;
    while (i < e.length()) {
      char c = e.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = afterString(e, i);
        continue;
      }
      if (c == opening) {
        depth++;
      } else if (c == closing && --depth == 0) {
        return i + 1;
      }
      i++;
    }
    throw new IllegalArgumentException(
        "Cannot read PromQL expression: unbalanced '" + opening + "' in " + e);
  }

  private static int afterString(String e, int open) {
    char quote = e.charAt(open);
    int i = open + 1;
    while (i < e.length() && e.charAt(i) != quote) {
      i += e.charAt(i) == '\\' && quote != '`' ? 2 : 1;
    }
    if (i >= e.length()) {
      throw new IllegalArgumentException(
          "Cannot read PromQL expression: unterminated string in " + e);
    }
    return i + 1;
  }

  private static int lastTopLevelComma(String e, int from, int to) {
    int comma = -1;
    int i = from;
    while (i < to) {
      char c = e.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = afterString(e, i);
      } else if (c == '{' || c == '(' || c == '[') {
        i = after(e, i, c, c == '{' ? '}' : c == '(' ? ')' : ']');
      } else {
        if (c == ',') {
          comma = i;
        }
        i++;
      }
    }
    return comma;
  }
}
