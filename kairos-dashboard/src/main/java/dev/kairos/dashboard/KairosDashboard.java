package dev.kairos.dashboard;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.kairos.Scheduler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A web dashboard and JSON API over a {@link Scheduler}: the jobs, each job's definition, next
 * fires, run history and a chart of lateness and outcomes, the cluster's instances; and the actions
 * pause, resume, trigger now and unschedule, each confirmed and made through the {@code Scheduler}
 * API, so every rule of the engine holds. Runs on the JDK's own HTTP server.
 *
 * <pre>{@code
 * KairosDashboard dashboard = KairosDashboard.start(scheduler, 8080);   // http://localhost:8080/
 * ...
 * dashboard.close();
 * }</pre>
 *
 * <p>Security: without an {@linkplain Builder#auth authentication hook} the dashboard listens on
 * the loopback interface only, answers only loopback clients and only for a {@code localhost} host
 * name (against DNS rebinding); binding another address needs a hook. Every action needs a CSRF
 * token (see {@code /api/csrf}) and is logged at INFO with the user who made it; {@linkplain
 * Builder#readOnly read-only} mode refuses all actions. All user text (keys, data, errors) is
 * escaped; pages carry a Content-Security-Policy that allows no script.
 */
public final class KairosDashboard implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KairosDashboard.class);

  /** Default address: loopback only. */
  public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

  private final HttpServer server;
  private final ExecutorService executor;

  private KairosDashboard(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Starts a dashboard on {@code 127.0.0.1:port} (0: any free port) with the defaults.
   *
   * @param scheduler the scheduler to show and control
   * @param port the port to listen on, 0 for any free one
   * @return the running dashboard
   */
  public static KairosDashboard start(Scheduler scheduler, int port) {
    return builder(scheduler).port(port).start();
  }

  /**
   * A builder for a dashboard over this scheduler.
   *
   * @param scheduler the scheduler to show and control
   * @return a new builder
   */
  public static Builder builder(Scheduler scheduler) {
    return new Builder(scheduler);
  }

  /**
   * The port the dashboard listens on.
   *
   * @return the bound port
   */
  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * The dashboard's address, for example {@code http://127.0.0.1:8080/}.
   *
   * @return the dashboard's address
   */
  public URI uri() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().isLoopbackAddress() ? "localhost" : a.getHostString();
    return URI.create("http://" + host + ":" + a.getPort() + "/");
  }

  /** Stops the server (requests in progress get a second to finish). Idempotent. */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Settings of a dashboard; {@link #start()} starts one, {@link #handler()} gives its handler. */
  public static final class Builder {
    private final Scheduler scheduler;
    private int port = 8080;
    private String bindAddress = DEFAULT_BIND_ADDRESS;
    private DashboardAuth auth;
    private boolean readOnly;
    private Supplier<Map<String, Instant>> instances;
    private ZoneId zone = ZoneId.systemDefault();
    private Clock clock = Clock.systemUTC();

    private Builder(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /**
     * The port (default 8080; 0 picks a free one).
     *
     * @param port the port, 0 for any free one
     * @return this builder
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0..65535: " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * The address to listen on (default {@value #DEFAULT_BIND_ADDRESS}); anything but a loopback
     * address needs an {@link #auth} hook.
     *
     * @param address the host name or IP address to bind
     * @return this builder
     */
    public Builder bindAddress(String address) {
      this.bindAddress = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Who makes each request; without one, only local clients are served.
     *
     * @param auth the authentication hook
     * @return this builder
     */
    public Builder auth(DashboardAuth auth) {
      this.auth = Objects.requireNonNull(auth, "auth");
      return this;
    }

    /**
     * Read-only mode: pages and JSON reads only; every action is refused (403).
     *
     * @param readOnly true to refuse every action
     * @return this builder
     */
    public Builder readOnly(boolean readOnly) {
      this.readOnly = readOnly;
      return this;
    }

    /**
     * Where the cluster's instances come from, for example {@code jdbcStore.jobStore()::instances}
     * (instance id to last heartbeat); without it the instances page says none are known.
     *
     * @param instances the source of instance ids and last heartbeats
     * @return this builder
     */
    public Builder instances(Supplier<Map<String, Instant>> instances) {
      this.instances = Objects.requireNonNull(instances, "instances");
      return this;
    }

    /**
     * The zone times are shown in for jobs without a cron zone (default: the system zone).
     *
     * @param zone the display zone
     * @return this builder
     */
    public Builder zone(ZoneId zone) {
      this.zone = Objects.requireNonNull(zone, "zone");
      return this;
    }

    /**
     * The clock that ages heartbeats on the instances page (default: the system clock).
     *
     * @param clock the clock of the instances page
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The dashboard as a handler to mount in the application's own {@code HttpServer}, at any
     * context path. It applies the same checks; without an auth hook it serves loopback clients
     * only.
     *
     * @return the dashboard's HTTP handler
     */
    public HttpHandler handler() {
      return new Router(scheduler, auth, readOnly, instances, zone, clock);
    }

    /**
     * Starts the dashboard.
     *
     * @return the running dashboard
     * @throws IllegalStateException if asked to listen on a non-loopback address without an auth
     *     hook
     * @throws UncheckedIOException if the port cannot be bound
     */
    public KairosDashboard start() {
      InetAddress address;
      try {
        address = InetAddress.getByName(bindAddress);
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("unknown bind address '" + bindAddress + "'", e);
      }
      if (!address.isLoopbackAddress() && auth == null) {
        throw new IllegalStateException(
            "the dashboard listens on "
                + bindAddress
                + ", not only on this machine: set an auth hook (auth(DashboardAuth.basic(...)))"
                + " or bind 127.0.0.1");
      }
      HttpServer server;
      try {
        server = HttpServer.create(new InetSocketAddress(address, port), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot listen on " + bindAddress + ":" + port + ": " + e.getMessage(), e);
      }
      ExecutorService executor =
          Executors.newFixedThreadPool(
              4,
              r -> {
                Thread t = new Thread(r, "kairos-dashboard");
                t.setDaemon(true);
                return t;
              });
      server.setExecutor(executor);
      server.createContext("/", handler());
      server.start();
      KairosDashboard d = new KairosDashboard(server, executor);
      log.info(
          "Kairos dashboard on {} ({}{})",
          d.uri(),
          auth == null ? "local clients only" : "authenticated",
          readOnly ? ", read-only" : "");
      return d;
    }
  }
}
