package dev.kairos.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one measuring JVM found for one (scenario, product, job count): the figures of each measured
 * run, and the error that stopped it, if any. Written by the child as a small tab-separated file,
 * read back by the parent.
 */
record Result(
    Scenario scenario, Product product, int jobs, List<Map<String, Double>> runs, String error) {

  /** The median of a figure over the runs, with its min and max; empty if no run has it. */
  Optional<Spread> spread(String metric) {
    double[] v =
        runs.stream()
            .map(r -> r.get(metric))
            .filter(x -> x != null && !x.isNaN())
            .mapToDouble(Double::doubleValue)
            .sorted()
            .toArray();
    if (v.length == 0) {
      return Optional.empty();
    }
    double median =
        v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    return Optional.of(new Spread(median, v[0], v[v.length - 1], v.length));
  }

  /** A median over runs with the smallest and largest run. */
  record Spread(double median, double min, double max, int runs) {}

  void write(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    for (Map<String, Double> run : runs) {
      StringBuilder sb = new StringBuilder("run");
      run.forEach((k, v) -> sb.append('\t').append(k).append('=').append(v));
      lines.add(sb.toString());
    }
    if (error != null) {
      lines.add("error\t" + error.replace('\n', ' ').replace('\t', ' '));
    }
    Files.write(file, lines);
  }

  static Result read(Scenario scenario, Product product, int jobs, Path file) throws IOException {
    List<Map<String, Double>> runs = new ArrayList<>();
    String error = null;
    for (String line : Files.readAllLines(file)) {
      String[] parts = line.split("\t");
      if (parts[0].equals("run")) {
        Map<String, Double> run = new LinkedHashMap<>();
        Arrays.stream(parts)
            .skip(1)
            .map(kv -> kv.split("=", 2))
            .forEach(kv -> run.put(kv[0], Double.parseDouble(kv[1])));
        runs.add(run);
      } else if (parts[0].equals("error")) {
        error = parts.length > 1 ? parts[1] : "unknown error";
      }
    }
    if (runs.isEmpty() && error == null) {
      error = "the measuring JVM reported nothing";
    }
    return new Result(scenario, product, jobs, runs, error);
  }
}
