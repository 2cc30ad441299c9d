#!/usr/bin/env bash
# Creates what one region pair needs, as the CloudFormation templates in infra/ do on AWS:
# a source and a target bucket, the event queue with a dead-letter queue, and the source bucket's
# notification of new metadata files to the queue.
set -euo pipefail

SOURCE_BUCKET="${SOURCE_BUCKET:-source}"
TARGET_BUCKET="${TARGET_BUCKET:-replica}"
SOURCE_PREFIX="${SOURCE_PREFIX:-warehouse/}"
QUEUE="${QUEUE:-iceberg-replicator-events}"

awslocal s3 mb "s3://${SOURCE_BUCKET}"
awslocal s3 mb "s3://${TARGET_BUCKET}"
awslocal s3api put-bucket-versioning --bucket "${TARGET_BUCKET}" --versioning-configuration Status=Enabled

awslocal sqs create-queue --queue-name "${QUEUE}-dlq" >/dev/null
DLQ_ARN=$(awslocal sqs get-queue-attributes --queue-url "$(awslocal sqs get-queue-url --queue-name "${QUEUE}-dlq" --query QueueUrl --output text)" \
  --attribute-names QueueArn --query Attributes.QueueArn --output text)
awslocal sqs create-queue --queue-name "${QUEUE}" \
  --attributes "{\"RedrivePolicy\":\"{\\\"deadLetterTargetArn\\\":\\\"${DLQ_ARN}\\\",\\\"maxReceiveCount\\\":\\\"5\\\"}\",\"VisibilityTimeout\":\"60\"}" >/dev/null
QUEUE_ARN=$(awslocal sqs get-queue-attributes --queue-url "$(awslocal sqs get-queue-url --queue-name "${QUEUE}" --query QueueUrl --output text)" \
  --attribute-names QueueArn --query Attributes.QueueArn --output text)

# As infra/cloudformation/source-notifications.yaml: under the source prefix, one configuration per
# suffix (S3 takes one suffix rule per filter), compressed metadata included.
NOTIFICATIONS=$(cat <<EOF
{"QueueConfigurations": [
  {"QueueArn": "${QUEUE_ARN}", "Events": ["s3:ObjectCreated:*"],
   "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "${SOURCE_PREFIX}"},
                                      {"Name": "suffix", "Value": ".metadata.json"}]}}},
  {"QueueArn": "${QUEUE_ARN}", "Events": ["s3:ObjectCreated:*"],
   "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "${SOURCE_PREFIX}"},
                                      {"Name": "suffix", "Value": ".metadata.json.gz"}]}}},
  {"QueueArn": "${QUEUE_ARN}", "Events": ["s3:ObjectCreated:*"],
   "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "${SOURCE_PREFIX}"},
                                      {"Name": "suffix", "Value": "version-hint.text"}]}}}
]}
EOF
)
awslocal s3api put-bucket-notification-configuration --bucket "${SOURCE_BUCKET}" \
  --notification-configuration "${NOTIFICATIONS}"
echo "replicator resources ready: s3://${SOURCE_BUCKET}/${SOURCE_PREFIX} -> s3://${TARGET_BUCKET}, queue ${QUEUE}"
