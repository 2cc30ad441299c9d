package io.icerepl.merge.copyplan;

/**
 * The kinds of file a replica commit puts in place, in publish order: a reader must never find a
 * file that names one not there yet.
 */
public enum FileKind {
  DATA(Phase.FILES, false),
  EQUALITY_DELETE(Phase.FILES, false),
  POSITION_DELETE(Phase.FILES, true),
  DELETION_VECTOR(Phase.FILES, true),
  STATISTICS(Phase.FILES, false),
  MANIFEST(Phase.MANIFESTS, true),
  MANIFEST_LIST(Phase.MANIFEST_LISTS, true);

  private final Phase phase;
  private final boolean rewritten;

  FileKind(Phase phase, boolean rewritten) {
    this.phase = phase;
    this.rewritten = rewritten;
  }

  public Phase phase() {
    return phase;
  }

  /** Whether the file holds paths and is rewritten rather than copied byte for byte. */
  public boolean rewritten() {
    return rewritten;
  }

  /** Publish phases of one replica commit. */
  public enum Phase {
    FILES,
    MANIFESTS,
    MANIFEST_LISTS
  }
}
