package dev.kairos.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kairos.KairosException;
import dev.kairos.dashboard.JobJson;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code kairos}: see and steer the jobs in a Kairos JDBC store from a shell. Global options name
 * the store; each subcommand does one thing. Tables by default, {@code --json} for scripts.
 *
 * <p>Exit codes: {@value #OK} done; {@value #FAILED} the store answered no (an unknown key, a
 * problem {@code doctor} found); {@value #USAGE} bad input (an unknown option, a bad cron
 * expression, an invalid import file); {@value #STORE} the store failed (unreachable, wrong
 * password, tables missing). Errors are one line on stderr, never a stack trace.
 */
@Command(
    name = "kairos",
    mixinStandardHelpOptions = true,
    versionProvider = KairosCli.Version.class,
    sortOptions = false,
    description = "See and steer the jobs in a Kairos store.",
    subcommands = {
      Commands.Jobs.class,
      Commands.Show.class,
      Commands.History.class,
      Commands.Preview.class,
      Calendars.All.class,
      Calendars.One.class,
      Actions.Pause.class,
      Actions.Resume.class,
      Actions.Trigger.class,
      Actions.Unschedule.class,
      Commands.Instances.class,
      Transfer.Export.class,
      Transfer.Import.class,
      Doctor.class,
      DashboardCommand.class
    })
public final class KairosCli implements Callable<Integer> {
  /** Exit code: done. */
  public static final int OK = 0;

  /** Exit code: the store answered no (unknown key, problems found). */
  public static final int FAILED = 1;

  /** Exit code: bad input. */
  public static final int USAGE = 2;

  /** Exit code: the store failed (unreachable, wrong password, tables missing). */
  public static final int STORE = 3;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--url",
      scope = ScopeType.INHERIT,
      description = "JDBC URL of the store, e.g. jdbc:postgresql://db:5432/app")
  String url;

  @Option(
      names = "--h2",
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      description = "an embedded H2 store's folder (as JdbcStore.h2(DIR)); not while its app runs")
  Path h2;

  @Option(names = "--user", scope = ScopeType.INHERIT, description = "database user")
  String user;

  @Option(
      names = "--password",
      scope = ScopeType.INHERIT,
      description = "database password (default: environment variable KAIROS_PASSWORD)")
  String password;

  @Option(
      names = "--prefix",
      scope = ScopeType.INHERIT,
      description = "table prefix (default: kairos_)")
  String prefix;

  @Option(
      names = "--create-schema",
      scope = ScopeType.INHERIT,
      description = "create or upgrade the tables if needed (default: only check them)")
  boolean createSchema;

  @Option(names = "--json", scope = ScopeType.INHERIT, description = "JSON output for scripts")
  boolean json;

  /**
   * Runs the tool and exits with its exit code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    System.setProperty("org.slf4j.simpleLogger.log.dev.kairos.dashboard", "info");
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    System.exit(run(out, err, args));
  }

  /**
   * Runs the tool with these arguments, writing to {@code out} and {@code err}.
   *
   * @param out where results are written
   * @param err where errors and usage are written
   * @param args the command line
   * @return the exit code, 0 on success
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new KairosCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (e, a) -> {
          err.println("kairos: " + e.getMessage() + " (see kairos --help)");
          return USAGE;
        });
    cli.setExecutionExceptionHandler((e, c, p) -> fail(err, e));
    int code = cli.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /** One line for a failure, and its exit code. */
  private static int fail(PrintWriter err, Exception e) {
    if (e instanceof CliException c) {
      err.println("kairos: " + c.getMessage());
      return c.code;
    }
    if (e instanceof IllegalArgumentException) {
      err.println("kairos: " + e.getMessage());
      return USAGE;
    }
    if (e instanceof KairosException) {
      err.println("kairos: " + oneLine(e));
      return STORE;
    }
    err.println("kairos: unexpected " + oneLine(e));
    return STORE;
  }

  /** The message with its causes' messages, on one line. */
  static String oneLine(Throwable e) {
    StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
        b.append(": ").append(c.getMessage());
      }
    }
    return b.toString().replaceAll("\\s*\\R\\s*", " ");
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return USAGE;
  }

  /** Opens the store the options name. */
  Session session() {
    String pw = password != null ? password : System.getenv("KAIROS_PASSWORD");
    return new Session(url, h2, user, pw, prefix, createSchema);
  }

  /** The output stream. */
  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Prints JSON, pretty. */
  void printJson(JsonNode node) {
    try {
      out().println(JobJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(node));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  /** A failure with its exit code. */
  static final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int code;

    CliException(int code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  /** The version from the jar's manifest, when packaged. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = KairosCli.class.getPackage().getImplementationVersion();
      return new String[] {"kairos " + (v == null ? "(development build)" : v)};
    }
  }
}
