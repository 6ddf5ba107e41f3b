package dev.kairos;

/**
 * What a job attached to a {@link BusinessCalendar} ({@link JobSpec#excluding(String,
 * CalendarPolicy)}) does with a fire its timetable puts at a time the calendar excludes.
 */
public enum CalendarPolicy {
  /**
   * The excluded fire is dropped; the job fires at its next timetable slot the calendar allows.
   * Dropped fires are counted as misfire drops are ({@link SchedulerListener#firesDropped}),
   * reported when the next allowed fire is taken up. The default.
   */
  SKIP,

  /**
   * The excluded fire moves to the next instant the calendar allows (the next business day, at the
   * start of its time-of-day window). Several excluded fires that move to the same instant run
   * once; the timetable goes on from the moved fire.
   */
  NEXT_ALLOWED
}
