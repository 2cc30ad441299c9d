package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How a catalog is named on the command line, and what of it is ever printed. */
class CatalogSpecTest {

  @Test
  void theNameDefaultsToReplicatorAndIsNoProperty() {
    CatalogSpec spec = CatalogSpec.parse("type=rest,uri=http://127.0.0.1:8181");

    assertThat(spec.name()).isEqualTo(CatalogSpec.DEFAULT_NAME).isEqualTo("replicator");
    assertThat(spec.properties())
        .containsExactlyInAnyOrderEntriesOf(Map.of("type", "rest", "uri", "http://127.0.0.1:8181"));
    assertThat(CatalogSpec.parse("name=prod, type=GLUE ,warehouse=s3://b/wh").name())
        .isEqualTo("prod");
    assertThat(CatalogSpec.parse("name=prod,type=GLUE,warehouse=s3://b/wh").type())
        .isEqualTo("glue");
  }

  @Test
  void aValueMayHoldEqualsSigns() {
    CatalogSpec spec =
        CatalogSpec.parse(
            "name=src,type=jdbc,uri=jdbc:sqlite:/c.db?journal_mode=WAL,credential=id:a=b=");

    assertThat(spec.properties())
        .containsEntry("uri", "jdbc:sqlite:/c.db?journal_mode=WAL")
        .containsEntry("credential", "id:a=b=");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "name=prod,type                 | Cannot parse catalog property 'type': expected key=value",
        "type=rest,=http://h            | Cannot parse catalog property '=http://h': expected key=value",
        "name=prod,type=hive            | Catalog prod has type=hive; supported: rest, glue, jdbc, sql",
        "name=prod,uri=http://h         | Catalog prod needs type=rest, type=glue, type=jdbc or type=sql",
        "name=py,type=sql               | Catalog py has type=sql but no uri",
        "name=py,type=sql,uri=mysql+pymysql://u:pw@db/cat | Catalog py has type=sql with database URL mysql+pymysql://****@db/cat; understood: sqlite",
      })
  void whatIsNotACatalogIsRefusedNamingThePair(String text, String message) {
    assertThatThrownBy(() -> CatalogSpec.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "sqlite:////tmp/wh/pyiceberg_catalog.db      | jdbc:sqlite:/tmp/wh/pyiceberg_catalog.db",
        "sqlite:///catalog.db                        | jdbc:sqlite:catalog.db",
        "sqlite://                                   | jdbc:sqlite::memory:",
        "sqlite:///:memory:                          | jdbc:sqlite::memory:",
        "postgresql://db.internal:5432/iceberg       | jdbc:postgresql://db.internal:5432/iceberg",
        "postgresql+psycopg2://db/iceberg?sslmode=require | jdbc:postgresql://db/iceberg?sslmode=require",
        "jdbc:sqlite:/already/jdbc.db                | jdbc:sqlite:/already/jdbc.db",
      })
  void aPyIcebergSqlCatalogIsReadAsTheJdbcCatalogItIs(String sqlAlchemy, String jdbc) {
    CatalogSpec spec = CatalogSpec.parse("name=default,type=sql,uri=" + sqlAlchemy);

    assertThat(spec.type()).isEqualTo("jdbc");
    assertThat(spec.properties()).containsEntry("uri", jdbc).doesNotContainKey("jdbc.user");
    assertThat(spec.name()).as("the rows' catalog_name").isEqualTo("default");
  }

  @Test
  void aSqlAlchemyUserAndPasswordGoToTheDriverDecodedUnlessGiven() {
    CatalogSpec spec =
        CatalogSpec.parse(
            "name=default,type=SQL,uri=postgresql+psycopg://ice:p%40ss%3Aw0rd@db:6432/cat");

    assertThat(spec.properties())
        .containsEntry("uri", "jdbc:postgresql://db:6432/cat")
        .containsEntry("jdbc.user", "ice")
        .containsEntry("jdbc.password", "p@ss:w0rd");
    assertThat(spec.describe()).doesNotContain("p@ss", "p%40ss");
    assertThat(
            CatalogSpec.parse("type=sql,uri=postgresql://ice:old@db/cat,jdbc.password=new")
                .properties())
        .containsEntry("jdbc.password", "new")
        .containsEntry("jdbc.user", "ice");
  }

  @Test
  void noSecretIsPrinted() {
    CatalogSpec spec =
        CatalogSpec.parse(
            "name=prod,type=rest,uri=https://user:pa55@catalog.example/api?password=pa55,"
                + "credential=client:s3cr3t,token=t0k3n,jdbc.password=pa55,"
                + "s3.access-key-id=AKIA,s3.secret-access-key=s3cr3t,s3.session-token=t0k3n,"
                + "header.Authorization=Bearer t0k3n,warehouse=s3://bucket/wh,"
                + "s3.endpoint=http://127.0.0.1:9000");

    Map<String, String> redacted = spec.redacted();
    assertThat(redacted)
        .containsEntry("credential", "****")
        .containsEntry("token", "****")
        .containsEntry("jdbc.password", "****")
        .containsEntry("s3.access-key-id", "****")
        .containsEntry("s3.secret-access-key", "****")
        .containsEntry("s3.session-token", "****")
        .containsEntry("header.Authorization", "****")
        .containsEntry("uri", "https://****@catalog.example/api")
        .containsEntry("warehouse", "s3://bucket/wh")
        .containsEntry("s3.endpoint", "http://127.0.0.1:9000");
    assertThat(spec.describe())
        .isEqualTo("catalog prod (rest https://****@catalog.example/api)")
        .isEqualTo(spec.toString());
    assertThat(redacted.toString() + spec.describe())
        .doesNotContain("pa55", "s3cr3t", "t0k3n", "AKIA");
  }

  @Test
  void aJdbcUriKeepsNoPasswordParameter() {
    assertThat(
            CatalogSpec.parse("type=jdbc,uri=jdbc:postgresql://db:5432/cat?user=u&password=p")
                .describe())
        .isEqualTo("catalog replicator (jdbc jdbc:postgresql://db:5432/cat)");
    assertThat(
            CatalogSpec.parse("type=jdbc,uri=jdbc:sqlserver://db:1433;user=u;password=p")
                .describe())
        .isEqualTo("catalog replicator (jdbc jdbc:sqlserver://db:1433)");
  }

  @Test
  void theCommandsDefaultsNeverReplaceWhatTheUserGave() {
    CatalogSpec spec =
        CatalogSpec.parse("name=src,type=jdbc,uri=jdbc:sqlite:/c.db,client.region=eu-west-1")
            .withDefaults(Map.of("client.region", "us-east-1", "s3.path-style-access", "true"));

    assertThat(spec.properties())
        .containsEntry("client.region", "eu-west-1")
        .containsEntry("s3.path-style-access", "true");
    assertThat(spec.name()).isEqualTo("src");
  }
}
