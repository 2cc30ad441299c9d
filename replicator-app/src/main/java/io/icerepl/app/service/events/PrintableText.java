package io.icerepl.app.service.events;

/**
 * Object keys come from outside: a control character in one (a line break, an escape sequence)
 * would forge log lines and metric labels. Such keys are refused, and shown only escaped.
 */
final class PrintableText {
  private PrintableText() {}

  /**
   * Whether the text holds a character no key should: ISO controls, invisible format characters
   * (e.g. bidirectional overrides), line and paragraph separators, lone surrogates, and the
   * replacement character a malformed UTF-8 escape decodes to.
   */
  static boolean isPrintable(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (!allowed(text.charAt(i))) {
        return false;
      }
    }
    return text.codePoints().noneMatch(c -> Character.getType(c) == Character.SURROGATE);
  }

  /** The text with every refused character as {@code \\uXXXX}, safe to log. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (allowed(c) && !Character.isSurrogate(c) && c != '\\') {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }

  private static boolean allowed(char c) {
    int type = Character.getType(c);
    return !Character.isISOControl(c)
        && type != Character.FORMAT
        && type != Character.LINE_SEPARATOR
        && type != Character.PARAGRAPH_SEPARATOR
        && c != '\uFFFD';
  }
}
