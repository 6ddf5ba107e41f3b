package dev.kairos.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH microbenchmarks (heap, misfire rule, cron) with short settings for the report: 1
 * warm-up and 2 measured iterations of 1 s, one fork. For steadier figures run JMH itself: {@code
 * java -cp kairos-benchmarks.jar org.openjdk.jmh.Main <regex>} uses the classes' own settings.
 */
final class Micro {
  static final String INCLUDE = "dev\\.kairos\\.engine\\.internal\\..*Benchmark";

  private Micro() {}

  /** One benchmark at one parameter setting. */
  record Row(String benchmark, String params, double score, double error, String unit) {}

  static List<Row> run() throws RunnerException {
    org.openjdk.jmh.runner.options.Options options =
        new OptionsBuilder()
            .include(INCLUDE)
            .warmupIterations(1)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(2)
            .measurementTime(TimeValue.seconds(1))
            .forks(1)
            .build();
    Collection<RunResult> results = new org.openjdk.jmh.runner.Runner(options).run();
    List<Row> rows = new ArrayList<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      String shortName = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
      String params =
          r.getParams().getParamsKeys().stream()
              .map(k -> k + "=" + r.getParams().getParam(k))
              .collect(Collectors.joining(", "));
      rows.add(
          new Row(
              shortName,
              params,
              r.getPrimaryResult().getScore(),
              r.getPrimaryResult().getScoreError(),
              r.getPrimaryResult().getScoreUnit()));
    }
    return rows;
  }
}
