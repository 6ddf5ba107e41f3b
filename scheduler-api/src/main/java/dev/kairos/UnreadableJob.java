package dev.kairos;

/**
 * A stored job the scheduler refuses to read: its row holds something {@link Scheduler#schedule}
 * would refuse (edited by hand, restored from an old backup, written by a newer Kairos). It is
 * never fired and never rewritten by the scheduler; {@link Scheduler#schedule} of its key replaces
 * its definition, {@link Scheduler#unschedule} deletes it.
 *
 * @param key the job's key
 * @param reason why the row is refused, naming the column or rule (the key is not repeated in it)
 */
public record UnreadableJob(String key, String reason) {}
