-- 0006: the rate ring's admission statement takes its clock and limit
-- from its own VALUES row, so the copies kept in the row go.  The table
-- is MEMORY: its counts start again from zero on a server restart.

ALTER TABLE rate_ring DROP COLUMN IF EXISTS at_sec, MODIFY lim INT NOT NULL
  COMMENT 'the limit of the last admission';
