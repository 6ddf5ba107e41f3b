-- Kairos job store, schema version 9 (H2): the change-feed sequence hands out values from a cache.
-- ${prefix} is replaced by the store's table prefix. Statements end with a semicolon at line end.
--
-- Every job row written takes a value of change_seq. H2 writes a sequence's high-water mark to the
-- file each time its cache of values is spent (32 values by default), in a commit of its own: on a
-- busy store that was one extra commit per 32 fires or scheduled jobs. H2's cache is one for the
-- whole database (values are still handed out in ascending order, whichever session asks), and
-- after a crash the sequence resumes above the last mark written, so a larger cache costs only a
-- gap in the numbers, which the change feed tolerates.

ALTER SEQUENCE ${prefix}change_seq CACHE 4096;
