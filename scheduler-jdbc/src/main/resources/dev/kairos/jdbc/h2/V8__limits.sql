-- Kairos job store, schema version 8 (H2): concurrency limits (Kairos.Builder.maxConcurrent).
-- Keep in step with ../postgresql/V8__limits.sql. ${prefix} is replaced by the store's table
-- prefix. Statements end with a semicolon at line end.
--
-- One row per concurrency limit, by name, inserted when an instance first claims a fire under the
-- limit. The row holds nothing: a limited claim locks it (SELECT ... FOR UPDATE) in the claim's
-- transaction, so claims of one limit are judged one at a time, by every instance; the claim then
-- counts the live leases (lease_until after the database's now) of jobs of the limit's handlers,
-- using the lease index of version 2.

CREATE TABLE ${prefix}limits (
  limit_name               VARCHAR(200)  NOT NULL PRIMARY KEY
);
