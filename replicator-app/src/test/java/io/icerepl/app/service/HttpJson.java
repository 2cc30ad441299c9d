package io.icerepl.app.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** A tiny HTTP client for the running service, sending its bearer token if it has one. */
public final class HttpJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client = HttpClient.newHttpClient();
  private final int port;
  private final String token;

  HttpJson(int port, String token) {
    this.port = port;
    this.token = token;
  }

  /** The same service, with another token (null: none). */
  /** The service's port, for clients other than this one (a browser). */
  public int port() {
    return port;
  }

  public HttpJson withToken(String other) {
    return new HttpJson(port, other);
  }

  public record Response(int status, String body) {
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }
  }

  public Response get(String path) {
    return send(request(path).GET().build());
  }

  public Response post(String path) {
    return send(request(path).POST(HttpRequest.BodyPublishers.noBody()).build());
  }

  /** A POST with a JSON body. */
  public Response post(String path, String json) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  /** A request as a browser sends it for an HTML form on another site: no token, a form body. */
  public Response crossSiteFormPost(String path, String origin) {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Origin", origin)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("confirm=yes"))
            .build());
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path));
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder;
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private Response send(HttpRequest request) {
    try {
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
