package io.icerepl.app.logging;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one redaction everything passes before it leaves the process: log lines and the stack traces
 * under them, command-line errors, the status API, health details and HTTP error bodies. Secrets
 * reach messages the replicator does not write (a JDBC driver's error quoting its URL, a library's
 * warning naming a REST URI with {@code user:password@}), so redaction works on the text itself:
 * every secret value the process was configured with is masked wherever it appears, and so are the
 * shapes secrets take in URIs ({@code //user:password@host}, {@code password=...} parameters) when
 * their values were never registered.
 */
public final class Redaction {
  private Redaction() {}

  /** What a secret is replaced by. */
  public static final String MASK = "****";

  /** Shorter values are not secrets worth masking: masking them would garble ordinary text. */
  private static final int SHORTEST_SECRET = 4;

  /** Property names whose values are secrets, matched anywhere in the lower-case name. */
  private static final Set<String> SECRET_WORDS =
      Set.of("credential", "token", "password", "secret", "session", "authorization");

  private static final Set<String> AZURE_SCHEMES = Set.of("abfss:", "abfs:", "wasbs:", "wasb:");

  private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();
  private static volatile List<String> longestFirst = List.of();

  private static final Pattern USER_INFO = Pattern.compile("(//)([^/@\\s:]*):([^/@\\s]+)@");
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile(
          "(?i)((?:password|passwd|pwd|secret|token|credential|accountkey|sharedaccesssignature)"
              + "[a-z_.-]*=|(?<![a-z])sig=)([^&;,\\s\"']+)");

  /** Whether a property of that name holds a secret (a password, a token, a key id's secret). */
  public static boolean isSecretName(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return SECRET_WORDS.stream().anyMatch(lower::contains)
        || lower.endsWith("key-id")
        || lower.endsWith("secret-key");
  }

  /** Masks {@code value} from now on, wherever it appears. */
  public static void secret(String value) {
    if (value == null || value.length() < SHORTEST_SECRET || !SECRETS.add(value)) {
      return;
    }
    synchronized (SECRETS) {
      longestFirst =
          SECRETS.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }
  }

  /**
   * Registers the secrets among configuration properties: values of secret-named keys, and the
   * passwords inside URI-valued ones.
   */
  public static void secretsOf(Map<String, String> properties) {
    properties.forEach(
        (key, value) -> {
          if (value == null) {
            return;
          }
          if (isSecretName(key)) {
            secret(value);
          }
          secretsIn(value);
        });
  }

  /** Registers the passwords a URI carries, in its user info or its parameters. */
  public static void secretsIn(String uri) {
    Matcher userInfo = USER_INFO.matcher(uri);
    while (userInfo.find()) {
      secret(userInfo.group(3));
    }
    Matcher parameter = SECRET_PARAMETER.matcher(uri);
    while (parameter.find()) {
      secret(parameter.group(2));
    }
  }

  /**
   * A URI as messages and the status API name it: its user info masked ({@code //****@host}, where
   * a password rides with the user name) and its parameters after {@code ?} or {@code ;} (where a
   * JDBC URL carries one) left out; the rest as it was.
   */
  public static String uri(String uri) {
    int parameters = uri.length();
    for (char start : new char[] {'?', ';'}) {
      int at = uri.indexOf(start);
      if (at >= 0 && at < parameters) {
        parameters = at;
      }
    }
    String kept = uri.substring(0, parameters);
    int authority = kept.indexOf("//");
    if (authority < 0) {
      return kept;
    }
    // user info lies in the authority only: an '@' in the path is part of a file name
    int path = kept.indexOf('/', authority + 2);
    int userInfoEnd = kept.lastIndexOf('@', path < 0 ? kept.length() : path);
    if (userInfoEnd <= authority) {
      return kept;
    }
    // Azure's locations name their container where other URIs name a user: no secret rides there
    int colon = kept.indexOf(':', authority + 2);
    boolean container =
        AZURE_SCHEMES.contains(kept.substring(0, authority).toLowerCase(Locale.ROOT))
            && (colon < 0 || colon > userInfoEnd);
    return container ? kept : kept.substring(0, authority + 2) + MASK + kept.substring(userInfoEnd);
  }

  /** {@code text} with every secret masked; null stays null. */
  public static String apply(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (String secret : longestFirst) {
      if (out.contains(secret)) {
        out = out.replace(secret, MASK);
      }
    }
    out = USER_INFO.matcher(out).replaceAll("$1" + MASK + "@");
    return SECRET_PARAMETER.matcher(out).replaceAll("$1" + MASK);
  }
}
