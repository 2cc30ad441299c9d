package io.icerepl.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The target-region template: replica bucket, key, task role, service and lag alarm. */
class ReplicatorTemplateTest {

  static final String SOURCE_BUCKET = "arn:${AWS::Partition}:s3:::${SourceBucketName}";
  static final String TARGET_BUCKET = "arn:${AWS::Partition}:s3:::${TargetBucketName}";
  static final String SOURCE_OBJECTS = SOURCE_BUCKET + "/${SourcePrefix}";
  static final String REPLICA_OBJECTS = TARGET_BUCKET + "/${TargetPrefix}";
  static final String LOCK_OBJECTS = TARGET_BUCKET + "/${LockPrefix}";
  static final String BREAK_GLASS_ROLE =
      "arn:${AWS::Partition}:iam::${AWS::AccountId}:role/${BreakGlassRoleName}";
  static final Set<String> S3_WRITES =
      Set.of(
          "s3:PutObject",
          "s3:DeleteObject",
          "s3:DeleteObjectVersion",
          "s3:AbortMultipartUpload",
          "s3:PutObjectAcl");

  private final Template template = Template.load(Template.REPLICATOR);

  /**
   * The task role's statements, but those that create and follow S3 Batch Operations jobs: IAM
   * gives CreateJob and ListJobs no resource, so they are checked apart ({@code
   * taskRoleCreatesOnlyCopyJobsAndPassesOnlyTheJobRole}).
   */
  private final List<Statement> taskRole =
      template.statementsOfRole("TaskRole").stream()
          .filter(s -> !s.policy().equals("BatchOperationsJobsPolicy"))
          .toList();

  private final List<Statement> batchJobs =
      template.statementsOfRole("TaskRole").stream()
          .filter(s -> s.policy().equals("BatchOperationsJobsPolicy"))
          .toList();

  private final List<Statement> batchRole = template.statementsOfRole("BatchOperationsRole");

  @Test
  void replicaBucketIsTheTargetBucketParameter() {
    assertThat(Template.render(template.properties("ReplicaBucket").path("BucketName")))
        .isEqualTo("${TargetBucketName}");
    assertThat(template.onlyResourceOfType("AWS::S3::Bucket")).isEqualTo("ReplicaBucket");
  }

  @Test
  void replicaBucketHasVersioningOn() {
    assertThat(
            template
                .properties("ReplicaBucket")
                .path("VersioningConfiguration")
                .path("Status")
                .asText())
        .isEqualTo("Enabled");
  }

  @Test
  void replicaBucketEncryptsWithSseKmsUnderTheTemplatesKey() {
    JsonNode rules =
        template
            .properties("ReplicaBucket")
            .path("BucketEncryption")
            .path("ServerSideEncryptionConfiguration");
    assertThat(rules).hasSize(1);
    JsonNode byDefault = rules.get(0).path("ServerSideEncryptionByDefault");
    assertThat(byDefault.path("SSEAlgorithm").asText()).isEqualTo("aws:kms");
    assertThat(Template.render(byDefault.path("KMSMasterKeyID"))).isEqualTo("${ReplicaKey.Arn}");
    assertThat(template.resource("ReplicaKey").path("Type").asText()).isEqualTo("AWS::KMS::Key");
    assertThat(template.properties("ReplicaKey").path("EnableKeyRotation").asBoolean()).isTrue();
  }

  @Test
  void replicaBucketBlocksAllPublicAccess() {
    JsonNode block = template.properties("ReplicaBucket").path("PublicAccessBlockConfiguration");
    for (String setting :
        List.of(
            "BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets")) {
      assertThat(block.path(setting).asBoolean()).as(setting).isTrue();
    }
  }

  @Test
  void bucketPolicyDeniesReplicaWritesToEveryoneButTheReplicatorAndBreakGlassRoles() {
    assertThat(Template.render(template.properties("ReplicaBucketPolicy").path("Bucket")))
        .isEqualTo("${ReplicaBucket}");
    Statement deny = bucketPolicyDenying("s3:PutObject");

    assertThat(deny.principal().asText()).isEqualTo("*");
    assertThat(deny.actions())
        .contains("s3:PutObject", "s3:PutObjectAcl", "s3:DeleteObject", "s3:DeleteObjectVersion");
    assertThat(deny.resources())
        .containsExactlyInAnyOrder(
            "${ReplicaBucket.Arn}/${TargetPrefix}*", "${ReplicaBucket.Arn}/${LockPrefix}*");
    JsonNode exceptRole = deny.condition().path("ArnNotEquals").path("aws:PrincipalArn");
    assertThat(Template.renderAll(exceptRole).stream().filter(r -> !r.contains("Fn::If")).toList())
        .containsExactlyInAnyOrder("${TaskRole.Arn}", BREAK_GLASS_ROLE);
    // and the S3 Batch Operations role, only where the template creates it
    JsonNode batch = exceptRole.get(2).path("Fn::If");
    assertThat(exceptRole).hasSize(4);
    assertThat(batch.get(0).asText()).isEqualTo("HasBatchOperations");
    assertThat(Template.render(batch.get(1))).isEqualTo("${BatchOperationsRole.Arn}");
    assertThat(Template.render(batch.get(2))).isEqualTo("${AWS::NoValue}");
    // and, after a failover, the promoted tables' writers, only when the parameter names them
    JsonNode writers = exceptRole.get(3).path("Fn::If");
    assertThat(writers.get(0).asText()).isEqualTo("HasFailoverWriter");
    assertThat(Template.render(writers.get(1))).isEqualTo("${FailoverWriterRoleArn}");
    assertThat(Template.render(writers.get(2))).isEqualTo("${AWS::NoValue}");
    JsonNode parameter = template.section("Parameters").get("FailoverWriterRoleArn");
    assertThat(parameter.path("Default").asText()).as("nobody writes by default").isEmpty();
    assertThat("arn:aws:iam::123456789012:role/etl-writers")
        .matches(parameter.path("AllowedPattern").asText());
    assertThat("*").doesNotMatch(parameter.path("AllowedPattern").asText());
  }

  @Test
  void batchOperationsAreOffByDefaultAndEverythingOfThemHangsOnTheirCondition() {
    assertThat(template.section("Parameters").get("EnableBatchOperations").path("Default").asText())
        .isEqualTo("false");
    for (String id :
        List.of("BatchOperationsRole", "BatchOperationsCopyPolicy", "BatchOperationsJobsPolicy")) {
      assertThat(template.resource(id).path("Condition").asText())
          .as(id)
          .isEqualTo("HasBatchOperations");
    }
    assertThat(template.resource("BatchOperationsSourceKeyPolicy").path("Condition").asText())
        .isEqualTo("HasBatchOperationsAndSourceKmsKey");
    JsonNode trust =
        template
            .properties("BatchOperationsRole")
            .path("AssumeRolePolicyDocument")
            .path("Statement");
    assertThat(trust).hasSize(1);
    assertThat(trust.get(0).path("Principal").path("Service").asText())
        .isEqualTo("batchoperations.s3.amazonaws.com");
    assertThat(
            Template.render(
                trust.get(0).path("Condition").path("StringEquals").path("aws:SourceAccount")))
        .isEqualTo("${AWS::AccountId}");
  }

  @Test
  void batchOperationsRoleCopiesFromTheSourcePrefixIntoTheReplicaPrefixOnly() {
    assertThat(batchRole).isNotEmpty().allSatisfy(s -> assertThat(s.allows()).isTrue());
    assertThat(PolicyChecks.wildcardActions(batchRole)).isEmpty();
    assertThat(PolicyChecks.wildcardResources(batchRole)).isEmpty();
    assertThat(PolicyChecks.actionsOutsideServices(batchRole, Set.of("s3", "kms"))).isEmpty();
    assertThat(
            batchRole.stream()
                .filter(s -> s.resources().stream().anyMatch(r -> r.startsWith(SOURCE_BUCKET)))
                .flatMap(s -> s.resources().stream()))
        .containsOnly(SOURCE_OBJECTS + "*");
    assertThat(
            batchRole.stream()
                .filter(s -> s.resources().stream().anyMatch(r -> r.startsWith(SOURCE_BUCKET)))
                .flatMap(s -> s.actions().stream()))
        .containsExactlyInAnyOrder("s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectTagging");
    String hidden = REPLICA_OBJECTS + "*/metadata/.replicator-batch/*/";
    // data and delete files only: no metadata file, no version hint
    assertThat(actionsOn(batchRole, REPLICA_OBJECTS + "*"))
        .as("the whole replica prefix")
        .isEmpty();
    assertThat(actionsOn(batchRole, REPLICA_OBJECTS + "*/data/*"))
        .containsExactlyInAnyOrder("s3:PutObject", "s3:PutObjectTagging");
    assertThat(actionsOn(batchRole, hidden + "manifest.csv"))
        .containsExactlyInAnyOrder("s3:GetObject", "s3:GetObjectVersion");
    assertThat(actionsOn(batchRole, hidden + "report/job-*")).containsExactly("s3:PutObject");
    assertThat(batchRole.stream().flatMap(s -> s.actions().stream()))
        .noneMatch(a -> a.startsWith("s3:Delete") || a.equals("s3:ListBucket"));
    assertThat(
            PolicyChecks.grantsOutside(
                batchRole, "kms", Set.of("${ReplicaKey.Arn}", "${SourceKmsKeyArn}")))
        .isEmpty();
  }

  @Test
  void taskRoleCreatesOnlyCopyJobsAndPassesOnlyTheJobRole() {
    assertThat(batchJobs.stream().flatMap(s -> s.actions().stream()))
        .containsExactlyInAnyOrder("s3:CreateJob", "s3:ListJobs", "s3:DescribeJob", "iam:PassRole");
    for (Statement s : batchJobs) {
      assertThat(s.actions()).as(s.toString()).hasSize(1);
      switch (s.actions().get(0)) {
        case "s3:CreateJob" -> {
          assertThat(s.resources()).containsExactly("*");
          assertThat(s.condition().path("StringEquals").path("s3:RequestJobOperation").asText())
              .isEqualTo("S3PutObjectCopy");
        }
        case "s3:ListJobs" -> assertThat(s.resources()).containsExactly("*");
        case "s3:DescribeJob" ->
            assertThat(s.resources())
                .containsExactly("arn:${AWS::Partition}:s3:${AWS::Region}:${AWS::AccountId}:job/*");
        default -> {
          assertThat(s.resources()).containsExactly("${BatchOperationsRole.Arn}");
          assertThat(s.condition().path("StringEquals").path("iam:PassedToService").asText())
              .isEqualTo("batchoperations.s3.amazonaws.com");
        }
      }
    }
  }

  @Test
  void theContainerIsToldTheBatchOperationsRoleOnlyWhenTheTemplateCreatesIt() {
    List<String> told = new java.util.ArrayList<>();
    for (JsonNode e :
        template
            .properties("TaskDefinition")
            .path("ContainerDefinitions")
            .get(0)
            .path("Environment")) {
      if (e.path("Fn::If").path(0).asText().equals("HasBatchOperations")) {
        told.add(
            e.path("Fn::If").get(1).path("Name").asText()
                + "="
                + Template.render(e.path("Fn::If").get(1).path("Value")));
        assertThat(Template.render(e.path("Fn::If").get(2))).isEqualTo("${AWS::NoValue}");
      }
    }
    assertThat(told)
        .containsExactlyInAnyOrder(
            "REPLICATOR_BATCHOPERATIONS_ENABLED=true",
            "REPLICATOR_BATCHOPERATIONS_ROLEARN=${BatchOperationsRole.Arn}");
  }

  private static List<String> actionsOn(List<Statement> statements, String resource) {
    return statements.stream()
        .filter(s -> s.resources().contains(resource))
        .flatMap(s -> s.actions().stream())
        .toList();
  }

  @Test
  void bucketPolicyDeniesReplicationIntoTheBucketToEveryoneButTheBreakGlassRole() {
    Statement deny = bucketPolicyDenying("s3:ReplicateObject");

    assertThat(deny.principal().asText()).isEqualTo("*");
    assertThat(deny.actions())
        .containsExactlyInAnyOrder("s3:ReplicateObject", "s3:ReplicateDelete", "s3:ReplicateTags");
    assertThat(deny.resources()).containsExactly("${ReplicaBucket.Arn}/*");
    assertThat(Template.renderAll(deny.condition().path("ArnNotEquals").path("aws:PrincipalArn")))
        .containsExactly(BREAK_GLASS_ROLE);
  }

  @Test
  void bucketPolicyDeniesLifecycleAndVersioningChangesToEveryoneButTheBreakGlassRole() {
    Statement deny = bucketPolicyDenying("s3:PutLifecycleConfiguration");

    assertThat(deny.principal().asText()).isEqualTo("*");
    assertThat(deny.actions())
        .containsExactlyInAnyOrder("s3:PutLifecycleConfiguration", "s3:PutBucketVersioning");
    assertThat(deny.resources()).containsExactly("${ReplicaBucket.Arn}");
    assertThat(Template.renderAll(deny.condition().path("ArnNotEquals").path("aws:PrincipalArn")))
        .containsExactly(BREAK_GLASS_ROLE);
    assertThat(template.section("Parameters")).containsKey("BreakGlassRoleName");
  }

  @Test
  void bucketPolicyDeniesInsecureTransport() {
    Statement deny =
        bucketPolicy().stream()
            .filter(
                s ->
                    s.effect().equals("Deny")
                        && s.condition()
                            .path("Bool")
                            .path("aws:SecureTransport")
                            .asText()
                            .equals("false"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no Deny on aws:SecureTransport false"));
    assertThat(deny.principal().asText()).isEqualTo("*");
    assertThat(deny.actions()).containsExactly("s3:*");
    assertThat(deny.resources())
        .containsExactlyInAnyOrder("${ReplicaBucket.Arn}", "${ReplicaBucket.Arn}/*");
  }

  @Test
  void bucketPolicyAllowsNothing() {
    assertThat(bucketPolicy()).allSatisfy(s -> assertThat(s.effect()).isEqualTo("Deny"));
  }

  @Test
  void keyPolicyAdministersFromTheAccountAndLetsTheReplicatorUseTheKeyThroughS3Only() {
    List<Statement> statements =
        Statement.of("ReplicaKey", template.properties("ReplicaKey").path("KeyPolicy"));
    assertThat(statements).allSatisfy(s -> assertThat(s.allows()).isTrue());
    assertThat(statements)
        .extracting(s -> Template.render(s.principal().path("AWS")))
        .containsExactlyInAnyOrder(
            "arn:${AWS::Partition}:iam::${AWS::AccountId}:root", "${TaskRole.Arn}");

    Statement replicator =
        statements.stream()
            .filter(s -> Template.render(s.principal().path("AWS")).equals("${TaskRole.Arn}"))
            .findFirst()
            .orElseThrow();
    assertThat(replicator.actions())
        .containsExactlyInAnyOrder("kms:Decrypt", "kms:GenerateDataKey");
    assertThat(Template.render(replicator.condition().path("StringEquals").path("kms:ViaService")))
        .isEqualTo("s3.${AWS::Region}.amazonaws.com");
  }

  @Test
  void taskRoleIsGrantedOnlyThroughTheTemplatesPolicies() {
    JsonNode role = template.properties("TaskRole");
    assertThat(role.has("ManagedPolicyArns")).isFalse();
    assertThat(taskRole).isNotEmpty();
    assertThat(taskRole).allSatisfy(s -> assertThat(s.allows()).as(s.toString()).isTrue());
    assertThat(
            PolicyChecks.actionsOutsideServices(
                taskRole, Set.of("s3", "kms", "sqs", "secretsmanager")))
        .isEmpty();
    JsonNode trust = role.path("AssumeRolePolicyDocument").path("Statement");
    assertThat(trust).hasSize(1);
    assertThat(trust.get(0).path("Principal").path("Service").asText())
        .isEqualTo("ecs-tasks.amazonaws.com");
  }

  @Test
  void taskRoleGrantsNoWildcardAction() {
    assertThat(PolicyChecks.wildcardActions(taskRole)).isEmpty();
  }

  @Test
  void taskRoleGrantsNoWildcardResource() {
    assertThat(PolicyChecks.wildcardResources(taskRole)).isEmpty();
  }

  @Test
  void taskRoleObjectAccessStaysInsideTheSourceReplicaAndLockPrefixes() {
    assertThat(
            PolicyChecks.s3GrantsOutside(
                taskRole,
                Set.of(SOURCE_OBJECTS, REPLICA_OBJECTS, LOCK_OBJECTS),
                Set.of(SOURCE_BUCKET, TARGET_BUCKET)))
        .isEmpty();
  }

  @Test
  void taskRoleOnlyReadsTheSource() {
    List<String> sourceActions =
        taskRole.stream()
            .filter(s -> s.resources().stream().anyMatch(r -> r.startsWith(SOURCE_BUCKET)))
            .flatMap(s -> s.actions().stream())
            .toList();
    assertThat(sourceActions).containsOnly("s3:GetObject", "s3:ListBucket");
  }

  @Test
  void taskRoleWritesOnlyUnderTheReplicaAndLockPrefixes() {
    List<String> writtenResources =
        taskRole.stream()
            .filter(s -> s.actions().stream().anyMatch(S3_WRITES::contains))
            .flatMap(s -> s.resources().stream())
            .toList();
    assertThat(writtenResources)
        .isNotEmpty()
        .containsOnly(REPLICA_OBJECTS + "*", LOCK_OBJECTS + "*");
  }

  @Test
  void taskRoleListBucketCarriesAnS3PrefixCondition() {
    assertThat(taskRole.stream().filter(s -> s.actions().contains("s3:ListBucket")).toList())
        .hasSize(2);
    assertThat(PolicyChecks.listBucketWithoutPrefixCondition(taskRole)).isEmpty();
  }

  @Test
  void taskRoleKmsPermissionsAreOnlyOnTheKeys() {
    assertThat(
            PolicyChecks.grantsOutside(
                taskRole, "kms", Set.of("${ReplicaKey.Arn}", "${SourceKmsKeyArn}")))
        .isEmpty();
    assertThat(template.resource("SourceKeyPolicy").path("Condition").asText())
        .isEqualTo("HasSourceKmsKey");
  }

  @Test
  void taskRoleNeverEncryptsDirectly() {
    // SSE-KMS puts use GenerateDataKey; kms:Encrypt is never called on the replicator's behalf
    assertThat(taskRole.stream().flatMap(s -> s.actions().stream())).doesNotContain("kms:Encrypt");
    assertThat(
            taskRole.stream().filter(s -> s.hasActionOf("kms")).flatMap(s -> s.actions().stream()))
        .containsOnly("kms:Decrypt", "kms:GenerateDataKey");
  }

  @Test
  void taskRoleReadsOnlyTheApiTokenSecretAndOnlyWhenOneIsGiven() {
    List<Statement> secrets =
        taskRole.stream().filter(s -> s.hasActionOf("secretsmanager")).toList();
    assertThat(secrets)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.actions()).containsExactly("secretsmanager:GetSecretValue");
              assertThat(s.resources()).containsExactly("${ApiTokenSecretArn}");
              assertThat(template.resource(s.policy()).path("Condition").asText())
                  .isEqualTo("HasApiTokenSecret");
            });

    // the container is told the secret under the same condition
    JsonNode entry = null;
    for (JsonNode e :
        template
            .properties("TaskDefinition")
            .path("ContainerDefinitions")
            .get(0)
            .path("Environment")) {
      if (e.has("Fn::If")) {
        entry = e.path("Fn::If");
      }
    }
    assertThat(entry).as("a conditional environment variable").isNotNull();
    assertThat(entry.get(0).asText()).isEqualTo("HasApiTokenSecret");
    assertThat(entry.get(1).path("Name").asText()).isEqualTo("REPLICATOR_API_TOKENSECRETID");
    assertThat(Template.render(entry.get(1).path("Value"))).isEqualTo("${ApiTokenSecretArn}");
    assertThat(Template.render(entry.get(2))).isEqualTo("${AWS::NoValue}");
  }

  @Test
  void taskRoleSqsPermissionsAreOnlyOnTheQueueAndTheDeadLetterQueuesAttributes() {
    assertThat(
            PolicyChecks.grantsOutside(
                taskRole, "sqs", Set.of("${QueueArn}", "${DeadLetterQueueArn}")))
        .isEmpty();
    List<Statement> sqs = taskRole.stream().filter(s -> s.hasActionOf("sqs")).toList();
    assertThat(
            sqs.stream()
                .filter(s -> s.resources().equals(List.of("${QueueArn}")))
                .flatMap(s -> s.actions().stream()))
        .containsExactlyInAnyOrder(
            "sqs:ReceiveMessage",
            "sqs:DeleteMessage",
            "sqs:ChangeMessageVisibility",
            "sqs:GetQueueAttributes");
    assertThat(sqs)
        .filteredOn(s -> s.resources().contains("${DeadLetterQueueArn}"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.resources()).containsExactly("${DeadLetterQueueArn}");
              assertThat(s.actions()).containsExactly("sqs:GetQueueAttributes");
              assertThat(template.resource(s.policy()).path("Condition").asText())
                  .isEqualTo("HasDeadLetterQueue");
            });
  }

  @Test
  void theContainerIsToldTheDeadLetterQueueOnlyWhenItsDepthMayBeRead() {
    JsonNode entry = null;
    for (JsonNode e :
        template
            .properties("TaskDefinition")
            .path("ContainerDefinitions")
            .get(0)
            .path("Environment")) {
      if (e.path("Fn::If").path(0).asText().equals("HasDeadLetterQueue")) {
        entry = e.path("Fn::If");
      }
    }
    assertThat(entry).as("an environment variable under HasDeadLetterQueue").isNotNull();
    assertThat(entry.get(1).path("Name").asText()).isEqualTo("REPLICATOR_SQS_DEADLETTERQUEUE");
    assertThat(Template.render(entry.get(1).path("Value"))).isEqualTo("${DeadLetterQueueUrl}");
    assertThat(Template.render(entry.get(2))).isEqualTo("${AWS::NoValue}");
    assertThat(template.section("Parameters").get("DeadLetterQueueArn").path("Default").asText())
        .isEmpty();
  }

  @Test
  void executionRoleUsesTheEcsTaskExecutionManagedPolicyAndNothingElse() {
    JsonNode role = template.properties("TaskExecutionRole");
    assertThat(Template.renderAll(role.path("ManagedPolicyArns")))
        .containsExactly(
            "arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy");
    assertThat(template.statementsOfRole("TaskExecutionRole")).isEmpty();
  }

  @Test
  void serviceRunsOneFargateTaskWithTheTaskRole() {
    JsonNode service = template.properties(template.onlyResourceOfType("AWS::ECS::Service"));
    assertThat(service.path("LaunchType").asText()).isEqualTo("FARGATE");
    assertThat(service.path("DesiredCount").asInt()).isEqualTo(1);
    assertThat(Template.render(service.path("TaskDefinition"))).isEqualTo("${TaskDefinition}");
    JsonNode vpc = service.path("NetworkConfiguration").path("AwsvpcConfiguration");
    assertThat(Template.render(vpc.path("Subnets"))).isEqualTo("${Subnets}");
    assertThat(Template.render(vpc.path("SecurityGroups"))).isEqualTo("${SecurityGroups}");
    JsonNode breaker = service.path("DeploymentConfiguration").path("DeploymentCircuitBreaker");
    assertThat(breaker.path("Enable").asBoolean()).isTrue();
    assertThat(breaker.path("Rollback").asBoolean()).isTrue();

    JsonNode task = template.properties("TaskDefinition");
    assertThat(Template.renderAll(task.path("RequiresCompatibilities"))).containsExactly("FARGATE");
    assertThat(task.path("NetworkMode").asText()).isEqualTo("awsvpc");
    assertThat(Template.render(task.path("TaskRoleArn"))).isEqualTo("${TaskRole.Arn}");
    assertThat(Template.render(task.path("ExecutionRoleArn")))
        .isEqualTo("${TaskExecutionRole.Arn}");
  }

  @Test
  void containerIsConfiguredForTheRuleTheQueueAndTheLogGroup() {
    JsonNode containers = template.properties("TaskDefinition").path("ContainerDefinitions");
    assertThat(containers).hasSize(1);
    JsonNode container = containers.get(0);
    assertThat(Template.render(container.path("Image"))).isEqualTo("${ReplicatorImage}");

    Map<String, String> environment = new java.util.TreeMap<>();
    container
        .path("Environment")
        .forEach(e -> environment.put(e.path("Name").asText(), Template.render(e.path("Value"))));
    assertThat(environment)
        .containsEntry("REPLICATOR_RULES_0_SOURCE", "s3://${SourceBucketName}/${SourcePrefix}")
        .containsEntry(
            "REPLICATOR_RULES_0_TARGETS_0_PREFIX", "s3://${TargetBucketName}/${TargetPrefix}")
        .containsEntry("REPLICATOR_RULES_0_TARGETS_0_NAME", "${AWS::Region}")
        .containsEntry("REPLICATOR_S3_LOCKPREFIX", "${LockPrefix}")
        .containsEntry("REPLICATOR_S3_TARGET_REGION", "${AWS::Region}")
        .containsKey("REPLICATOR_S3_SOURCE_REGION")
        .containsEntry("REPLICATOR_SQS_ENABLED", "true")
        .containsEntry("REPLICATOR_SQS_QUEUE", "${QueueUrl}")
        .containsEntry("REPLICATOR_METRICS_NAME", "${AWS::StackName}")
        .containsEntry("SPRING_CLOUD_AWS_REGION_STATIC", "${AWS::Region}")
        .containsKey("SPRING_CLOUD_AWS_SQS_REGION");

    JsonNode logs = container.path("LogConfiguration");
    assertThat(logs.path("LogDriver").asText()).isEqualTo("awslogs");
    assertThat(Template.render(logs.path("Options").path("awslogs-group")))
        .isEqualTo("${LogGroup}");
  }

  @Test
  void theJvmExitsOnOutOfMemorySoEcsReplacesTheTask() {
    assertThat(environment().get("JAVA_TOOL_OPTIONS")).contains("-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void lagAlarmWatchesReplicationLagSecondsAgainstTheThresholdParameter() {
    JsonNode alarm = template.properties("ReplicationLagAlarm");
    assertThat(alarm.path("Namespace").asText()).isEqualTo("IcebergReplicator");
    assertThat(alarm.path("MetricName").asText()).isEqualTo("ReplicationLagSeconds");
    assertThat(alarm.path("Statistic").asText()).isEqualTo("Maximum");
    assertThat(Template.render(alarm.path("Threshold"))).isEqualTo("${LagAlarmThresholdSeconds}");
    assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
    assertThat(alarm.path("TreatMissingData").asText()).isEqualTo("breaching");
    // The container reports under the same dimension value the alarm selects.
    JsonNode dimensions = alarm.path("Dimensions");
    assertThat(dimensions).hasSize(1);
    assertThat(dimensions.get(0).path("Name").asText()).isEqualTo("Replicator");
    assertThat(Template.render(dimensions.get(0).path("Value"))).isEqualTo("${AWS::StackName}");
    assertThat(template.section("Parameters")).containsKey("LagAlarmThresholdSeconds");
  }

  @Test
  void failedTablesAlarmFiresWhenAnyReplicaStaysFailedOrDiverged() {
    JsonNode alarm = template.properties("FailedTablesAlarm");
    assertThat(alarm.path("Namespace").asText()).isEqualTo("IcebergReplicator");
    assertThat(alarm.path("MetricName").asText()).isEqualTo("FailedTables");
    // instances report their own view: any of them seeing a failed replica counts
    assertThat(alarm.path("Statistic").asText()).isEqualTo("Maximum");
    assertThat(alarm.path("Threshold").asInt()).isZero();
    assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
    assertThat(Template.render(alarm.path("EvaluationPeriods")))
        .isEqualTo("${FailedTablesAlarmEvaluationMinutes}");
    JsonNode dimensions = alarm.path("Dimensions");
    assertThat(dimensions).hasSize(1);
    assertThat(dimensions.get(0).path("Name").asText()).isEqualTo("Replicator");
    assertThat(Template.render(dimensions.get(0).path("Value"))).isEqualTo("${AWS::StackName}");
    assertThat(template.section("Parameters")).containsKey("FailedTablesAlarmEvaluationMinutes");
    assertThat(alarm.path("AlarmActions").toString()).contains("AlarmTopicArn");
  }

  @Test
  void outputsNameTheBucketQueueRoleAndService() {
    Map<String, JsonNode> outputs = template.section("Outputs");
    assertThat(outputs).containsKeys("TargetBucketArn", "QueueUrl", "TaskRoleArn", "ServiceName");
    assertThat(Template.render(outputs.get("TargetBucketArn").path("Value")))
        .isEqualTo("${ReplicaBucket.Arn}");
    assertThat(Template.render(outputs.get("TaskRoleArn").path("Value")))
        .isEqualTo("${TaskRole.Arn}");
    assertThat(Template.render(outputs.get("ServiceName").path("Value")))
        .isEqualTo("${Service.Name}");
  }

  @Test
  void replicaBucketAndKeyOutliveTheStack() {
    for (String id : List.of("ReplicaBucket", "ReplicaKey")) {
      assertThat(template.resource(id).path("DeletionPolicy").asText()).as(id).isEqualTo("Retain");
    }
  }

  private Map<String, String> environment() {
    Map<String, String> environment = new java.util.TreeMap<>();
    template
        .properties("TaskDefinition")
        .path("ContainerDefinitions")
        .get(0)
        .path("Environment")
        .forEach(e -> environment.put(e.path("Name").asText(), Template.render(e.path("Value"))));
    return environment;
  }

  private Statement bucketPolicyDenying(String action) {
    return bucketPolicy().stream()
        .filter(s -> s.effect().equals("Deny") && s.actions().contains(action))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Deny of " + action));
  }

  private List<Statement> bucketPolicy() {
    return Statement.of(
        "ReplicaBucketPolicy", template.properties("ReplicaBucketPolicy").path("PolicyDocument"));
  }
}
