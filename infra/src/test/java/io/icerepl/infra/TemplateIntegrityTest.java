package io.icerepl.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every name a template's intrinsic functions use is declared, in both templates. */
class TemplateIntegrityTest {

  /** A short-form tag such as "!Ref" or "!Sub" after a key, a list dash or a flow bracket. */
  private static final Pattern SHORT_FORM_TAG = Pattern.compile("(?m)(?:^|[:\\-\\[,]\\s*)!\\w+");

  private static final Pattern COMMENT_LINE = Pattern.compile("(?m)^\\s*#.*$");

  @ParameterizedTest
  @ValueSource(strings = {Template.REPLICATOR, Template.SOURCE_NOTIFICATIONS})
  void templateUsesOnlyLongFormIntrinsicFunctions(String name) {
    // Jackson YAML would read "!Ref X" as the plain string "X", hiding the reference.
    String yaml = COMMENT_LINE.matcher(Template.load(name).text()).replaceAll("");
    assertThat(SHORT_FORM_TAG.matcher(yaml).results().map(m -> m.group())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {Template.REPLICATOR, Template.SOURCE_NOTIFICATIONS})
  void everyRefGetAttSubConditionAndDependsOnNamesADeclaredEntry(String name) {
    assertThat(References.of(Template.load(name)).undeclared()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {Template.REPLICATOR, Template.SOURCE_NOTIFICATIONS})
  void everyParameterIsUsed(String name) {
    assertThat(References.of(Template.load(name)).unusedParameters()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {Template.REPLICATOR, Template.SOURCE_NOTIFICATIONS})
  void everyResourceHasAKnownTypePrefix(String name) {
    assertThat(Template.load(name).resources().values())
        .allSatisfy(r -> assertThat(r.path("Type").asText()).startsWith("AWS::"));
  }

  @Test
  void undeclaredNamesAndShortFormTagsAreReported() {
    Template broken = Template.loadTestResource("broken-references.yaml");
    assertThat(References.of(broken).undeclared())
        .containsExactlyInAnyOrder(
            "/Resources/Queue/Properties/RedrivePolicy/deadLetterTargetArn/Fn::GetAtt: resource Missing",
            "/Resources/Queue/Properties/QueueName/Fn::Sub: NoSuchParameter",
            "/Resources/Queue/Properties/DelaySeconds/Ref: Undeclared",
            "/Resources/Queue/Condition: condition NoSuchCondition",
            "/Resources/Queue/DependsOn: resource Ghost");
    assertThat(References.of(broken).unusedParameters()).containsExactly("Unused");
    assertThat(SHORT_FORM_TAG.matcher(broken.text()).find()).isTrue();
  }
}
