package io.icerepl.merge.copyplan;

/**
 * One step of a replica commit's copy plan. The plan is streamed step by step, in publish order, so
 * it is never held whole: a table's manifests can name far more files than fit in memory.
 */
public sealed interface CopyStep permits ManifestCopy, ManifestListCopy, StatisticsCopy {

  /** Files this step puts in place, the step's own manifest or manifest list included. */
  int size();
}
