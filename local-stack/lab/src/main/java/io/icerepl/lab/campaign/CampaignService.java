package io.icerepl.lab.campaign;

import io.icerepl.lab.local.EmbeddedAws;
import java.util.ArrayList;
import java.util.List;

/**
 * The service configuration both campaigns run: one rule, the embedded S3 and SQS, quick retries.
 */
final class CampaignService {
  static final String SOURCE_BUCKET = "source";
  static final String TARGET_BUCKET = "replica";
  static final String QUEUE = "campaign-events";

  private CampaignService() {}

  static List<String> arguments(String s3Endpoint, String sqsEndpoint) {
    List<String> args = new ArrayList<>();
    args.add("--replicator.rules[0].name=campaign");
    args.add("--replicator.rules[0].source=s3://" + SOURCE_BUCKET + "/warehouse");
    args.add("--replicator.rules[0].targets[0].name=replica");
    args.add("--replicator.rules[0].targets[0].prefix=s3://" + TARGET_BUCKET + "/warehouse");
    args.addAll(EmbeddedAws.endpointArguments(s3Endpoint, sqsEndpoint, QUEUE));
    return args;
  }
}
