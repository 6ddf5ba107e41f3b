package dev.kairos.jdbc.internal;

import java.time.Duration;

/**
 * The validated, immutable settings the builder hands to the store.
 *
 * @param tablePrefix prefix of every table and index name; a plain SQL identifier
 * @param createSchema whether {@code open()} creates and upgrades the tables, or only checks them
 * @param keepCompleted whether a completed one-shot job stays (state COMPLETE) or is deleted
 * @param historyPerJob runs kept per job (0 keeps none)
 * @param historyMaxAge runs that ended longer than this before a job's newest run are deleted; null
 *     keeps them (up to {@code historyPerJob})
 * @param clustered whether the store is in cluster mode (claims, notifications)
 * @param changeSettle how long after its stamp a change counts as settled ({@link
 *     ChangeFeed#SETTLE}; shorter only in tests)
 */
public record StoreSettings(
    String tablePrefix,
    boolean createSchema,
    boolean keepCompleted,
    int historyPerJob,
    Duration historyMaxAge,
    boolean clustered,
    Duration changeSettle) {}
