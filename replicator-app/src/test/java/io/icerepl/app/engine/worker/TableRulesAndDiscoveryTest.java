package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.retention.RetentionOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableRulesAndDiscoveryTest {
  private static final RetentionOptions NO_RETENTION =
      RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false);

  @TempDir Path dir;

  @Test
  void aTableMapsToTheSameRelativePathUnderEveryTarget() {
    TableRule rule =
        rule(
            "lake",
            "s3://src/wh/",
            new RuleTarget("eu", "s3://eu/wh", List.of()),
            new RuleTarget("us", "file:/replicas/", List.of()));
    assertThat(new TableRules(List.of(rule)).keysOf("s3://src/wh/ns/orders/"))
        .containsExactly(
            new TableKey(
                "lake", "eu", "ns/orders", "s3://src/wh/ns/orders", "s3://eu/wh/ns/orders"),
            new TableKey(
                "lake", "us", "ns/orders", "s3://src/wh/ns/orders", "file:/replicas/ns/orders"));
  }

  @Test
  void theRuleWithTheLongestSourcePrefixWins() {
    TableRule broad = rule("broad", "s3://src", new RuleTarget("t", "s3://a", List.of()));
    TableRule narrow = rule("narrow", "s3://src/wh", new RuleTarget("t", "s3://b", List.of()));
    List<TableKey> keys = new TableRules(List.of(broad, narrow)).keysOf("s3://src/wh/ns/orders");
    assertThat(keys)
        .extracting(TableKey::rule, TableKey::targetLocation)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("narrow", "s3://b/ns/orders"));
  }

  @Test
  void aRuleHoldsItsTablesInEverySpellingOfItsSourceAndKeepsItsOwn() {
    TableRule rule = rule("lake", "s3a://src/wh/", new RuleTarget("t", "s3://a", List.of()));
    TableRules rules = new TableRules(List.of(rule));
    assertThat(rules.keysOf("s3://src/wh/ns/orders"))
        .extracting(TableKey::table, TableKey::sourceLocation, TableKey::targetLocation)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "ns/orders", "s3a://src/wh/ns/orders", "s3://a/ns/orders"));
    assertThat(rules.keysOf("s3n://src/wh//")).as("the rule's own folder is no table").isEmpty();
    TableRule local = rule("local", "file:///data/wh", new RuleTarget("t", "file:/r", List.of()));
    assertThat(new TableRules(List.of(local)).keysOf("file:/data/wh/ns/t"))
        .extracting(TableKey::table)
        .containsExactly("ns/t");
  }

  @Test
  void aTableUnderNoRuleHasNoKeys() {
    TableRule rule = rule("lake", "s3://src/wh", new RuleTarget("t", "s3://a", List.of()));
    assertThat(new TableRules(List.of(rule)).keysOf("s3://src/whatever/ns/t")).isEmpty();
    assertThat(new TableRules(List.of(rule)).keysOf("s3://other/wh/ns/t")).isEmpty();
  }

  @Test
  void aKeyNamesItsNamespaceWithLevelsJoinedByTheUnitSeparator() {
    TableKey key = new TableKey("r", "t", "a/b/orders", "s", "d");
    assertThat(key.namespace()).isEqualTo("a\u001Fb");
    assertThat(new TableKey("r", "t", "a.b/orders", "s", "d").namespace()).isEqualTo("a.b");
    assertThat(key.name()).isEqualTo("orders");
  }

  @Test
  void discoveryFindsFoldersWithMetadataFilesUpToFourLevelsDown() throws IOException {
    Path wh = dir.resolve("wh");
    table(wh.resolve("top"));
    table(wh.resolve("ns/orders"));
    table(wh.resolve("a/b/c/deep"));
    table(wh.resolve("a/b/c/d/too-deep"));
    Files.createDirectories(wh.resolve("ns/empty/metadata"));
    Files.writeString(wh.resolve("ns/empty/metadata/notes.txt"), "x");
    Files.createDirectories(wh.resolve("ns/orders/data/inner"));

    TableRule rule = rule("lake", "file:" + wh, new RuleTarget("t", "file:/r", List.of()));
    assertThat(new TableDiscovery(SchemeStores.local(), new CatalogClients()).tables(rule))
        .containsExactly("a/b/c/deep", "ns/orders", "top");
  }

  @Test
  void plainPathsAbsoluteOrRelativeAreLocalTablesAsFileUrisAre() {
    SchemeStores stores = SchemeStores.local();
    assertThat(stores.targetStore("replicas/orders"))
        .isInstanceOf(io.icerepl.copier.store.LocalObjectStore.class);
    assertThat(stores.sourceStore("/lake/orders"))
        .isInstanceOf(io.icerepl.copier.store.LocalObjectStore.class);
    assertThat(stores.sourceStore("file:/lake/orders"))
        .isInstanceOf(io.icerepl.copier.store.LocalObjectStore.class);
  }

  @Test
  void locationsOfSchemesWithNoStoreAreRefusedWithAClearMessage() {
    assertThatThrownBy(() -> SchemeStores.local().targetStore("hdfs://nn/t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot open target store for hdfs://nn/t: scheme hdfs: is not supported (only s3://,"
                + " s3a://, s3n://, abfss://, abfs://, wasbs://, wasb://, gs://, file: and plain"
                + " paths)");
    assertThatThrownBy(() -> SchemeStores.local().targetStore("gs://bucket/t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open target store for gs://bucket/t: no GCS access is configured");
    assertThatThrownBy(() -> SchemeStores.local().sourceStore("s3://bucket/t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open source store for s3://bucket/t: no S3 access is configured");
  }

  private static void table(Path location) throws IOException {
    Files.createDirectories(location.resolve("metadata"));
    Files.writeString(location.resolve("metadata/v1.metadata.json"), "{}");
  }

  private static TableRule rule(String name, String source, RuleTarget... targets) {
    return new TableRule(name, source, List.of(targets), List.of(), NO_RETENTION, Optional.empty());
  }
}
