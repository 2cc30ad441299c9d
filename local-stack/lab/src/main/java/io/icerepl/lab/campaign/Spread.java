package io.icerepl.lab.campaign;

import java.util.List;

/** Medians and maxima of a campaign's measurements. */
final class Spread {
  private Spread() {}

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
  }

  static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
  }
}
