package dev.kairos.engine.internal;

import dev.kairos.JobContext;
import java.time.Instant;
import java.util.Optional;

/** The {@link JobContext} of one run. */
record RunContext(
    String key,
    String handler,
    Optional<String> data,
    Instant scheduledFireTime,
    Instant actualStart,
    int attempt,
    int missedFires,
    boolean recovery)
    implements JobContext {}
