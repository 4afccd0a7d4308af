-- 0022: each cron job's last pass, for formbackctl status and the
-- metrics (issue 18).  One row per job, written by the job at its end;
-- failures are counted per clock hour (UTC).
CREATE TABLE IF NOT EXISTS cron_passes (
  job           VARCHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  host          VARCHAR(255) NULL,
  started_at    DATETIME(6) NOT NULL,
  finished_at   DATETIME(6) NOT NULL,
  outcome       ENUM('ok','failed') NOT NULL,
  items         BIGINT NOT NULL DEFAULT 0,
  last_ok_at    DATETIME(6) NULL,
  hour_start    DATETIME NOT NULL,
  failures_hour INT NOT NULL DEFAULT 0
) ENGINE=InnoDB;
