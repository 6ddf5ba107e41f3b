package dev.kairos.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The end-to-end runner: {@code java -jar kairos-benchmarks.jar <scenario> [options]} (see {@link
 * Options#USAGE}). Measures each (scenario, product, size) in a JVM of its own, so one product's
 * heap, threads and JIT profile never touch another's, and writes one markdown report.
 */
public final class Runner {
  private final Options options;
  private final String command;
  private final List<Result> results = new ArrayList<>();
  private final Map<Product, String> unavailable = new LinkedHashMap<>();

  private Runner(Options options, String command) {
    this.options = options;
    this.command = command;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("soak")) {
      System.exit(
          dev.kairos.benchmarks.soak.Soak.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
    }
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(Options.USAGE);
      System.exit(2);
      return;
    }
    if (o.child()) {
      Child.run(o);
      System.exit(0); // a product may leave non-daemon threads behind
    }
    new Runner(o, String.join(" ", args)).run();
  }

  private void run() throws Exception {
    Instant started = Instant.now();
    double loadStart = Meter.loadAverage();
    List<Product> products = products();
    List<Micro.Row> micro = List.of();
    for (Scenario s : options.scenarios()) {
      if (!s.perProduct()) {
        micro = Micro.run();
        continue;
      }
      TreeSet<Integer> sizes = new TreeSet<>();
      products.forEach(p -> sizes.addAll(options.jobsFor(s, p)));
      for (int jobs : sizes) {
        for (Product p : products) {
          if (!options.jobsFor(s, p).contains(jobs)) {
            continue;
          }
          Result r = fork(s, p, jobs);
          results.add(r);
          System.out.printf(
              "%s %,d %s: %s%n",
              s.id(),
              jobs,
              p.id(),
              r.error() != null ? "FAILED " + r.error() : r.runs().size() + " runs");
        }
      }
    }
    Report.Context ctx =
        new Report.Context(
            command,
            options,
            products,
            unavailable,
            loadStart,
            Meter.loadAverage(),
            started,
            Instant.now());
    String report = new Report(ctx, results, micro).render();
    Path out = options.out().toAbsolutePath();
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println("report written to " + out);
  }

  private List<Product> products() {
    List<Product> chosen = new ArrayList<>();
    List<String> ids = options.products().isEmpty() ? Product.ids() : options.products();
    for (String id : ids) {
      if (options.skip().contains(id)) {
        System.out.println("skipping " + id + ": --skip");
        continue;
      }
      Product p = Product.byId(id);
      p.unavailable(options)
          .ifPresentOrElse(
              why -> {
                unavailable.put(p, why);
                System.out.println("skipping " + id + ": " + why);
              },
              () -> chosen.add(p));
    }
    return chosen;
  }

  private Result fork(Scenario s, Product p, int jobs) throws IOException, InterruptedException {
    Path file = Files.createTempFile("kairos-bench-", ".tsv");
    try {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xms" + options.childHeap()); // a fixed heap: no resizing during the runs
      cmd.add("-Xmx" + options.childHeap());
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add(Runner.class.getName());
      cmd.addAll(options.childArgs(s, p.id(), jobs, file));
      System.out.printf("%s %,d %s ...%n", s.id(), jobs, p.id());
      Process child = new ProcessBuilder(cmd).inheritIO().start();
      Duration limit = Child.limit(s, options);
      if (!child.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        child.destroyForcibly();
        child.waitFor();
        Result partial = Result.read(s, p, jobs, file);
        return new Result(
            s, p, jobs, partial.runs(), "no result within " + limit.toMinutes() + " min");
      }
      return Result.read(s, p, jobs, file);
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
