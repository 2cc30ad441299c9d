package io.icerepl.app.service.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/**
 * The configured bearer token. Tokens are compared by their SHA-256 digests with {@link
 * MessageDigest#isEqual}, so the time taken tells nothing about the token, not even its length.
 */
public final class ApiToken {
  private final String name;
  private final Optional<byte[]> digest;

  /**
   * @param name who holds the token, for logs
   * @param token the token; empty: nothing authenticates
   */
  public ApiToken(String name, Optional<String> token) {
    this.name = name;
    this.digest = token.map(ApiToken::sha256);
  }

  public String name() {
    return name;
  }

  public boolean configured() {
    return digest.isPresent();
  }

  public boolean matches(String candidate) {
    return digest.isPresent() && MessageDigest.isEqual(digest.get(), sha256(candidate));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
