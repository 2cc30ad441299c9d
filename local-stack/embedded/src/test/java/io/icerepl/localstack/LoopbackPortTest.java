package io.icerepl.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server whose free port was taken before it bound starts again on another one; any other failure
 * of its start is reported at once, naming the server.
 */
class LoopbackPortTest {

  @Test
  void aStartWhosePortWasTakenMeanwhileBindsAnotherOne() throws IOException {
    List<Integer> offered = new ArrayList<>();
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ServerSocket bound =
          LoopbackPort.start(
              "a test server",
              port -> {
                offered.add(port);
                // the first start finds its port taken, as when another JVM bound it first
                int bindTo = offered.size() == 1 ? taken.getLocalPort() : port;
                return new ServerSocket(bindTo, 50, InetAddress.getLoopbackAddress());
              });
      try (bound) {
        assertThat(offered).hasSize(2);
        assertThat(bound.getLocalPort())
            .isEqualTo(offered.get(1))
            .isNotEqualTo(taken.getLocalPort());
      }
    }
  }

  @Test
  void anotherFailureIsReportedAtOnce() {
    List<Integer> offered = new ArrayList<>();
    assertThatThrownBy(
            () ->
                LoopbackPort.start(
                    "a test server",
                    port -> {
                      offered.add(port);
                      throw new IOException("no such warehouse");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot start a test server on port")
        .hasMessageContaining("no such warehouse");
    assertThat(offered).hasSize(1);
  }

  @Test
  void portsTakenEveryTimeEndInAnErrorAfterTheAttempts() throws IOException {
    List<Integer> offered = new ArrayList<>();
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () ->
                  LoopbackPort.start(
                      "a test server",
                      port -> {
                        offered.add(port);
                        return new ServerSocket(
                            taken.getLocalPort(), 50, InetAddress.getLoopbackAddress());
                      }))
          .hasMessageContaining("free ports were taken before it bound");
    }
    assertThat(offered).hasSize(LoopbackPort.ATTEMPTS);
  }
}
