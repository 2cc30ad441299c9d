package io.icerepl.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class RedactionTest {

  @Test
  void aRegisteredSecretIsMaskedWhereverItAppears() {
    Redaction.secretsOf(Map.of("jdbc.password", "hunter2-registered", "uri", "jdbc:x://h/db"));

    assertThat(Redaction.apply("Cannot connect: FATAL password hunter2-registered rejected"))
        .isEqualTo("Cannot connect: FATAL password **** rejected");
  }

  @Test
  void passwordsInsideUrisAreMaskedEvenWhenNeverRegistered() {
    assertThat(Redaction.apply("GET http://alice:pa55word-x@catalog:8181/v1/config failed"))
        .isEqualTo("GET http://****@catalog:8181/v1/config failed");
    assertThat(
            Redaction.apply("jdbc:postgresql://h/db?user=u&password=pa55word-y&ssl=true refused"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=****&ssl=true refused");
    assertThat(Redaction.apply("jdbc:sqlserver://h;user=u;password=pa55word-z;db=x"))
        .isEqualTo("jdbc:sqlserver://h;user=u;password=****;db=x");
  }

  @Test
  void aUriIsNamedWithoutItsUserInfoNorItsParameters() {
    assertThat(Redaction.uri("mysql+pymysql://u:pw@db/cat"))
        .isEqualTo("mysql+pymysql://****@db/cat");
    assertThat(Redaction.uri("jdbc:postgresql://h:5432/db?user=u&password=pw"))
        .isEqualTo("jdbc:postgresql://h:5432/db");
    assertThat(Redaction.uri("jdbc:sqlserver://h;password=pw")).isEqualTo("jdbc:sqlserver://h");
    assertThat(Redaction.uri("https://catalog.example/api"))
        .isEqualTo("https://catalog.example/api");
    // an '@' in the path is a file name's, not user info
    assertThat(Redaction.uri("sqlite:///tmp/a@b.db")).isEqualTo("sqlite:///tmp/a@b.db");
    // Azure's locations name their container there, which is no secret; a password still is
    assertThat(Redaction.uri("abfss://lake@acct.dfs.core.windows.net/wh"))
        .isEqualTo("abfss://lake@acct.dfs.core.windows.net/wh");
    assertThat(Redaction.uri("wasbs://lake@acct.blob.core.windows.net/wh?sv=1&sig=abc"))
        .isEqualTo("wasbs://lake@acct.blob.core.windows.net/wh");
    assertThat(Redaction.uri("abfss://u:pw@acct.dfs.core.windows.net/wh"))
        .isEqualTo("abfss://****@acct.dfs.core.windows.net/wh");
  }

  @Test
  void azuresSecretsAreMaskedInConnectionStringsAndSasUrls() {
    assertThat(
            Redaction.apply(
                "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=c2VjcmV0LWtleQ==;"
                    + "EndpointSuffix=core.windows.net"))
        .isEqualTo(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=****;"
                + "EndpointSuffix=core.windows.net");
    assertThat(
            Redaction.apply(
                "GET https://acct.blob.core.windows.net/c/b?sv=2024-08-04&sig=AbC%2Fd3f&sp=r 403"))
        .isEqualTo("GET https://acct.blob.core.windows.net/c/b?sv=2024-08-04&sig=****&sp=r 403");
    assertThat(Redaction.apply("SharedAccessSignature=sv=1&sig=xyz")).doesNotContain("xyz");
    // a parameter whose name only ends in sig is no signature
    assertThat(Redaction.apply("design=open")).isEqualTo("design=open");
  }

  @Test
  void theSecretInAUriIsRegisteredSoItIsMaskedAloneToo() {
    Redaction.secretsIn("postgresql://u:only-in-a-uri-77@h/db");

    assertThat(Redaction.apply("authentication failed with only-in-a-uri-77"))
        .isEqualTo("authentication failed with ****");
  }

  @Test
  void textWithoutSecretsIsLeftAsItIs() {
    Redaction.secret("abc"); // too short to be masked: would garble ordinary text
    String text = "s3://bucket/abc/ns/t: 3 files, see http://host:8181/v1 (abc)";
    assertThat(Redaction.apply(text)).isEqualTo(text);
    assertThat(Redaction.apply(null)).isNull();
  }

  @Test
  void theShippedLogConfigurationMasksSecretsInMessagesAndStackTraces() throws Exception {
    Redaction.secret("logged-secret-4711");
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(RedactionTest.class.getResource("/logback.xml"));
      context.start();
      // the shipped console appender, its pattern and converters as configured, into a buffer
      ((OutputStreamAppender<?>)
              context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE"))
          .setOutputStream(captured);
      Logger log = context.getLogger("io.icerepl.test");
      log.warn(
          "connecting with {}",
          "jdbc:x://u:logged-secret-4711@h/db",
          new IllegalStateException(
              "driver said: bad password logged-secret-4711",
              new RuntimeException("cause: password=logged-secret-4711")));
    } finally {
      context.stop();
    }

    String output = captured.toString(StandardCharsets.UTF_8);
    assertThat(output)
        .as(context.getStatusManager().getCopyOfStatusList().toString())
        .contains("connecting with jdbc:x://****@h/db")
        .contains("driver said: bad password ****")
        .contains("cause: password=****")
        .contains("at io.icerepl.app.logging.RedactionTest")
        .doesNotContain("logged-secret-4711");
  }
}
