-- Kairos job store, schema version 12 (H2): the run history's id column hands out values from a cache.
-- ${prefix} is replaced by the store's table prefix. Statements end with a semicolon at line end.
--
-- Every run written back adds a history row, and its id comes from the column's identity sequence.
-- As for change_seq (version 9), H2 writes the sequence's high-water mark to the file each time its
-- cache is spent (32 values by default), in a commit of its own that stores the file: one extra
-- store per 32 runs, about a sixth of the write-back threads' CPU in a profile of 10,000 due
-- one-shots. Ids stay unique and ascending; after a crash they resume above the last mark written,
-- so a larger cache costs only a gap in the numbers, which nothing reads.

ALTER TABLE ${prefix}runs ALTER COLUMN id SET CACHE 4096;
