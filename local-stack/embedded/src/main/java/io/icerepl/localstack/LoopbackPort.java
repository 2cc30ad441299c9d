package io.icerepl.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.ServerSocket;

/**
 * Starts a server on a loopback port picked free, for servers that must be told their port before
 * they bind (their URLs carry it). Another process can take the port between the pick and the bind,
 * which happens when test JVMs start servers side by side: a start whose bind fails picks another
 * port and starts again.
 */
public final class LoopbackPort {
  /** Starts before giving up; each collision needs another process to win a narrow race. */
  static final int ATTEMPTS = 10;

  private LoopbackPort() {}

  /** A server's start on a given port; it cleans up after itself when it throws. */
  @FunctionalInterface
  public interface Start<T> {
    T on(int port) throws Exception;
  }

  /**
   * Runs {@code start} on a free loopback port, on another one each time its bind fails.
   *
   * @throws IllegalStateException when every attempt found its port taken, or the start failed
   *     otherwise
   */
  public static <T> T start(String server, Start<T> start) {
    Exception last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = free();
      try {
        return start.on(port);
      } catch (Exception e) {
        if (!isBindFailure(e)) {
          throw new IllegalStateException(
              "Cannot start " + server + " on port " + port + ": " + e.getMessage(), e);
        }
        last = e;
      }
    }
    throw new IllegalStateException(
        "Cannot start " + server + ": " + ATTEMPTS + " free ports were taken before it bound",
        last);
  }

  /** A loopback port no socket holds at this moment. */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port", e);
    }
  }

  static boolean isBindFailure(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof BindException) {
        return true;
      }
      for (Throwable suppressed : cause.getSuppressed()) {
        if (isBindFailure(suppressed)) {
          return true;
        }
      }
    }
    return false;
  }
}
