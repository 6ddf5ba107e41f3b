package dev.kairos.cli;

import dev.kairos.dashboard.DashboardAuth;
import dev.kairos.dashboard.KairosDashboard;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * dashboard: the web dashboard, standalone, over the store (its scheduler never fires; actions
 * change the store as an application's would). Runs until interrupted (Ctrl-C).
 */
@Command(name = "dashboard", description = "Serve the web dashboard over the store until Ctrl-C.")
final class DashboardCommand implements Callable<Integer> {
  @ParentCommand KairosCli root;

  @Option(names = "--port", defaultValue = "8080", description = "port (default: 8080)")
  int port;

  @Option(
      names = "--bind",
      defaultValue = KairosDashboard.DEFAULT_BIND_ADDRESS,
      description = "address (default: 127.0.0.1; others need --basic-user)")
  String bind;

  @Option(names = "--read-only", description = "refuse all actions")
  boolean readOnly;

  @Option(
      names = "--basic-user",
      description = "require HTTP basic auth as this user; password from KAIROS_DASHBOARD_PASSWORD")
  String basicUser;

  @Override
  public Integer call() throws InterruptedException {
    try (Session s = root.session()) {
      KairosDashboard.Builder b =
          KairosDashboard.builder(s.scheduler(Set.of()))
              .port(port)
              .bindAddress(bind)
              .readOnly(readOnly)
              .instances(s.store()::instances);
      if (basicUser != null) {
        String pw = System.getenv("KAIROS_DASHBOARD_PASSWORD");
        if (pw == null || pw.isEmpty()) {
          throw new IllegalArgumentException(
              "--basic-user needs the password in KAIROS_DASHBOARD_PASSWORD");
        }
        b.auth(DashboardAuth.basic(basicUser, pw));
      }
      try (KairosDashboard d = start(b)) {
        root.out().println("Kairos dashboard on " + d.uri() + " (Ctrl-C stops it)");
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
        stop.await();
      }
      return KairosCli.OK;
    }
  }

  private static KairosDashboard start(KairosDashboard.Builder b) {
    try {
      return b.start();
    } catch (IllegalStateException | java.io.UncheckedIOException e) {
      throw new KairosCli.CliException(KairosCli.USAGE, e.getMessage());
    }
  }
}
