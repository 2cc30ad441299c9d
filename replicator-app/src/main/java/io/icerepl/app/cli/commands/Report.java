package io.icerepl.app.cli.commands;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.icerepl.app.logging.Redaction;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A command's result, printed on stdout as aligned lines for people ({@code label value}, one line
 * per item of a list) or, with {@code --json}, as one JSON object for scripts, with the same facts
 * under stable keys. Every command builds its result here, so the two never disagree.
 */
public final class Report {
  /** Labels are padded to this width, so values line up in a column. */
  private static final int LABEL_WIDTH = 18;

  private static final ObjectMapper JSON =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private final Map<String, Object> fields = new LinkedHashMap<>();
  private final List<String> lines = new ArrayList<>();
  private final boolean aligned;

  private Report(boolean aligned) {
    this.aligned = aligned;
  }

  /** A report whose lines align their values in one column. */
  public static Report aligned() {
    return new Report(true);
  }

  /** A report whose lines are {@code name value}, as metric names are printed. */
  public static Report spaced() {
    return new Report(false);
  }

  /** One fact, printed as it is. */
  public Report put(String key, String label, Object value) {
    return put(key, label, value, String.valueOf(value));
  }

  /** One fact, printed for people as {@code text}. */
  public Report put(String key, String label, Object value, String text) {
    fields.put(key, value);
    lines.add(line(label, text));
    return this;
  }

  /** One item of a list: a line of its own, one element of the JSON array {@code key}. */
  public Report item(String key, String label, Object value) {
    return item(key, label, value, String.valueOf(value));
  }

  /** As above, printed for people as {@code text}. */
  @SuppressWarnings("unchecked")
  public Report item(String key, String label, Object value, String text) {
    ((List<Object>) fields.computeIfAbsent(key, k -> new ArrayList<>())).add(value);
    lines.add(line(label, text));
    return this;
  }

  /** One item of a list whose line is {@code line} as it is, unlabelled (a row of a table). */
  @SuppressWarnings("unchecked")
  public Report row(String key, Object value, String line) {
    ((List<Object>) fields.computeIfAbsent(key, k -> new ArrayList<>())).add(value);
    lines.add(line);
    return this;
  }

  /** A list with no items yet: in JSON an empty array, so scripts need not test for the key. */
  public Report list(String key) {
    fields.computeIfAbsent(key, k -> new ArrayList<>());
    return this;
  }

  /** A fact only scripts get, with no line of its own (the text says it another way). */
  public Report json(String key, Object value) {
    fields.put(key, value);
    return this;
  }

  /** A labelled line only people get (the JSON says it under its own keys). */
  public Report text(String label, String text) {
    lines.add(line(label, text));
    return this;
  }

  /** A line only people get. */
  public Report text(String line) {
    lines.add(line);
    return this;
  }

  /** The facts as the JSON object holds them. */
  Map<String, Object> fields() {
    return fields;
  }

  /** Prints the report, redacted, on {@code out}. */
  public void print(PrintWriter out, boolean asJson) {
    if (asJson) {
      out.println(toJson(fields));
    } else {
      lines.forEach(l -> out.println(Redaction.apply(l)));
    }
    out.flush();
  }

  /** {@code value} as one line of JSON, redacted. */
  public static String toJson(Object value) {
    try {
      return Redaction.apply(JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write a report as JSON: " + e.getMessage(), e);
    }
  }

  private String line(String label, String text) {
    return aligned ? String.format("%-" + LABEL_WIDTH + "s %s", label, text) : label + " " + text;
  }
}
