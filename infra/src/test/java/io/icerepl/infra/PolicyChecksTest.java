package io.icerepl.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The least-privilege checks reject an overly broad role, so their passing on the template means
 * something.
 */
class PolicyChecksTest {

  private final List<Statement> broad =
      Template.loadTestResource("overly-broad-task-role.yaml").statementsOfRole("TaskRole");

  @Test
  void wildcardActionIsReported() {
    assertThat(PolicyChecks.wildcardActions(broad)).singleElement().asString().contains("s3:*");
  }

  @Test
  void wildcardResourcesAreReported() {
    assertThat(PolicyChecks.wildcardResources(broad))
        .hasSize(3)
        .anySatisfy(v -> assertThat(v).endsWith("wildcard resource *"))
        .anySatisfy(v -> assertThat(v).endsWith("${SourceBucketName}/*"))
        .anySatisfy(v -> assertThat(v).contains("key/*"));
  }

  @Test
  void objectsUnderAPathAreNoWildcardButEveryObjectOfABucketIs() {
    Template scoped = Template.loadTestResource("scoped-task-role.yaml");
    assertThat(PolicyChecks.wildcardResources(scoped.statementsOfRole("TaskRole")))
        .singleElement()
        .asString()
        .endsWith("wildcard resource arn:${AWS::Partition}:s3:::${TargetBucketName}/*");
  }

  @Test
  void objectAccessOutsideThePrefixesIsReported() {
    assertThat(
            PolicyChecks.s3GrantsOutside(
                broad,
                Set.of(ReplicatorTemplateTest.SOURCE_OBJECTS),
                Set.of(ReplicatorTemplateTest.SOURCE_BUCKET)))
        .hasSize(2)
        .anySatisfy(v -> assertThat(v).contains("resource *"))
        .anySatisfy(v -> assertThat(v).contains("${SourceBucketName}/*"));
  }

  @Test
  void listBucketWithoutPrefixConditionIsReported() {
    assertThat(PolicyChecks.listBucketWithoutPrefixCondition(broad))
        .singleElement()
        .asString()
        .contains("without an s3:prefix condition");
  }

  @Test
  void kmsAndSqsGrantsOnOtherResourcesAreReported() {
    assertThat(PolicyChecks.grantsOutside(broad, "kms", Set.of("${ReplicaKey.Arn}"))).hasSize(1);
    assertThat(PolicyChecks.grantsOutside(broad, "sqs", Set.of("${QueueArn}")))
        .anySatisfy(v -> assertThat(v).contains("other-queue"))
        .anySatisfy(v -> assertThat(v).contains("share a statement with other services"));
  }

  @Test
  void actionsOfOtherServicesAreReported() {
    assertThat(PolicyChecks.actionsOutsideServices(broad, Set.of("s3", "kms", "sqs")))
        .singleElement()
        .asString()
        .contains("iam:PassRole");
  }
}
