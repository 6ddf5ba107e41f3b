package dev.kairos.cli;

import dev.kairos.Scheduler;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BiPredicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** pause, resume, trigger, unschedule: through the {@code Scheduler} API, never raw SQL. */
final class Actions {
  private Actions() {}

  /** One action on one job; exit 1 if there is no such job. */
  abstract static class Action implements Callable<Integer> {
    @ParentCommand KairosCli root;

    @Parameters(paramLabel = "KEY", description = "the job's key")
    String key;

    private final String done;
    private final BiPredicate<Scheduler, String> how;

    Action(String done, BiPredicate<Scheduler, String> how) {
      this.done = done;
      this.how = how;
    }

    @Override
    public Integer call() {
      try (Session s = root.session()) {
        Scheduler scheduler = s.scheduler(Set.of());
        if (!how.test(scheduler, key)) {
          throw new KairosCli.CliException(KairosCli.FAILED, "no job '" + key + "'");
        }
        String state = scheduler.job(key).map(j -> j.state().name()).orElse("DELETED");
        if (root.json) {
          root.printJson(
              dev.kairos.dashboard.JobJson.mapper()
                  .createObjectNode()
                  .put("key", key)
                  .put("action", done)
                  .put("state", state));
        } else {
          root.out().println(done + " job '" + key + "' (now " + state + ")");
        }
        return KairosCli.OK;
      }
    }
  }

  @Command(name = "pause", description = "Stop firing a job, keeping it.")
  static final class Pause extends Action {
    Pause() {
      super("paused", Scheduler::pause);
    }
  }

  @Command(
      name = "resume",
      description = "Resume a paused job; missed fires follow its misfire policy.")
  static final class Resume extends Action {
    Resume() {
      super("resumed", Scheduler::resume);
    }
  }

  @Command(name = "trigger", description = "Run a job once now, outside its timetable.")
  static final class Trigger extends Action {
    Trigger() {
      super("triggered", Scheduler::triggerNow);
    }
  }

  @Command(name = "unschedule", description = "Delete a job and its history.")
  static final class Unschedule extends Action {
    Unschedule() {
      super("unscheduled", Scheduler::unschedule);
    }
  }
}
