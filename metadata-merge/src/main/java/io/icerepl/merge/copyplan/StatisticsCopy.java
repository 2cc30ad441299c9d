package io.icerepl.merge.copyplan;

import java.util.List;

/**
 * Statistics and partition statistics files the replica lacks. Only the table metadata names them,
 * so they need only be in place before it is published.
 *
 * @param files the files, copied byte for byte
 */
public record StatisticsCopy(List<FileCopy> files) implements CopyStep {

  public StatisticsCopy {
    files = List.copyOf(files);
  }

  @Override
  public int size() {
    return files.size();
  }
}
