package io.icerepl.app.cli.options;

import picocli.CommandLine.Option;

/** The replica table a command works on. */
public final class TargetOption {
  @Option(
      names = "--target",
      required = true,
      paramLabel = "<location>",
      converter = LocationConverter.class,
      description = "Replica table location: an absolute path, a file: URI or s3://bucket/path.")
  String target;

  public String target() {
    return target;
  }
}
