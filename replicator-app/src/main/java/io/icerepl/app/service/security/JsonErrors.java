package io.icerepl.app.service.security;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writes the API's refusals as {@code {"error": "..."}}, as the controllers answer. */
final class JsonErrors {
  private JsonErrors() {}

  static void write(HttpServletResponse response, int status, String challenge, String message)
      throws IOException {
    message = io.icerepl.app.logging.Redaction.apply(message);
    response.setStatus(status);
    response.setHeader("WWW-Authenticate", challenge);
    response.setContentType("application/json");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response
        .getWriter()
        .write("{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
  }
}
