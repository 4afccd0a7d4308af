-- 0035: formback-aggregate follows changes, not tenants (issue 40;
-- formback-aggregate(8)).
--
-- Every write of a row the daily report counts marks its tenant's JST
-- day dirty in the writer's own transaction, by the triggers below, so
-- no writer can forget it: the collector's applier (tag events), the
-- abandonment pass and conversions (leads), formback-deliver and the
-- providers' receipts (deliveries), clicks and opens (links), a step
-- removed (the step_deleted flag of its messages' days), an import or an
-- operator's SQL alike.  A pass recounts the marked days, oldest mark
-- first, and deletes each mark in the recount's transaction: first,
-- so that it waits for the writers still holding it (INSERT IGNORE keeps
-- a shared lock on the mark it found) and then reads their rows.  A day
-- with no mark has no row left uncounted: the report's
-- not_computed_dates are exactly the marked days.  Deletes (the
-- retention purge, an erasure) mark nothing: the figures stay.
CREATE TABLE IF NOT EXISTS report_dirty_days (
  tenant_id  UUID NOT NULL,
  day        DATE NOT NULL COMMENT 'JST',
  marked_at  DATETIME(6) NOT NULL
    COMMENT 'UTC: the first mark since the last recount',
  PRIMARY KEY (tenant_id, day),
  KEY report_dirty_days_marked (marked_at, tenant_id, day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Each trigger is one statement, so that the file runs as it is through
-- the mariadb client too (no compound statement, no DELIMITER): an
-- INSERT IGNORE of the JST days (DATE(t + INTERVAL 9 HOUR)) of the
-- row's times that are not NULL.
DROP PROCEDURE IF EXISTS report_mark;
DROP PROCEDURE IF EXISTS report_mark_lead_messages;

-- tag events: the day they were received
CREATE OR REPLACE TRIGGER tag_events_report_insert AFTER INSERT ON tag_events
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT NEW.tenant_id, DATE(NEW.received_at + INTERVAL 9 HOUR),
      UTC_TIMESTAMP(6);
CREATE OR REPLACE TRIGGER tag_events_report_update AFTER UPDATE ON tag_events
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT OLD.tenant_id, DATE(OLD.received_at + INTERVAL 9 HOUR),
      UTC_TIMESTAMP(6)
    UNION SELECT NEW.tenant_id, DATE(NEW.received_at + INTERVAL 9 HOUR),
      UTC_TIMESTAMP(6);

-- leads: the days of their captured, abandoned and converted times
CREATE OR REPLACE TRIGGER leads_report_insert AFTER INSERT ON leads
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT NEW.tenant_id, DATE(t.at + INTERVAL 9 HOUR), UTC_TIMESTAMP(6)
    FROM (
      SELECT NEW.captured_at AS at UNION ALL SELECT NEW.abandoned_at
      UNION ALL SELECT NEW.converted_at) t WHERE t.at IS NOT NULL;
-- ... old and new, when a time the report counts changes; a conversion
-- (or a lead's site) also changes the counts of its messages' days
CREATE OR REPLACE TRIGGER leads_report_update AFTER UPDATE ON leads
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT NEW.tenant_id, DATE(t.at + INTERVAL 9 HOUR), UTC_TIMESTAMP(6)
    FROM (
      SELECT OLD.captured_at AS at UNION ALL SELECT OLD.abandoned_at
      UNION ALL SELECT OLD.converted_at UNION ALL SELECT NEW.captured_at
      UNION ALL SELECT NEW.abandoned_at UNION ALL SELECT NEW.converted_at
      UNION ALL SELECT d.sent_at FROM deliveries d FORCE INDEX (deliveries_lead)
        WHERE d.tenant_id = NEW.tenant_id AND d.lead_id = NEW.id
          AND d.sent_at IS NOT NULL AND NOT (
            NEW.converted_at <=> OLD.converted_at
            AND NEW.conversion_source <=> OLD.conversion_source
            AND NEW.site_id <=> OLD.site_id)) t
    WHERE t.at IS NOT NULL AND NOT (NEW.captured_at <=> OLD.captured_at
      AND NEW.abandoned_at <=> OLD.abandoned_at
      AND NEW.converted_at <=> OLD.converted_at
      AND NEW.conversion_source <=> OLD.conversion_source
      AND NEW.site_id <=> OLD.site_id
      AND NEW.campaign_id <=> OLD.campaign_id);

-- deliveries: the day they were sent, whatever of theirs it counts
-- changes (a receipt's status, the step they belong to)
CREATE OR REPLACE TRIGGER deliveries_report_insert AFTER INSERT ON deliveries
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT NEW.tenant_id, DATE(NEW.sent_at + INTERVAL 9 HOUR),
      UTC_TIMESTAMP(6) FROM DUAL WHERE NEW.sent_at IS NOT NULL;
CREATE OR REPLACE TRIGGER deliveries_report_update AFTER UPDATE ON deliveries
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT NEW.tenant_id, DATE(t.at + INTERVAL 9 HOUR), UTC_TIMESTAMP(6)
    FROM (
      SELECT OLD.sent_at AS at UNION ALL SELECT NEW.sent_at) t
    WHERE t.at IS NOT NULL AND NOT (NEW.sent_at <=> OLD.sent_at
      AND NEW.status <=> OLD.status AND NEW.channel <=> OLD.channel
      AND NEW.step_id <=> OLD.step_id AND NEW.step_no <=> OLD.step_no
      AND NEW.campaign_id <=> OLD.campaign_id
      AND NEW.scenario_id <=> OLD.scenario_id);

-- links: a message's first open or click counts on the day it was sent
CREATE OR REPLACE TRIGGER links_report_insert AFTER INSERT ON links
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT d.tenant_id, DATE(d.sent_at + INTERVAL 9 HOUR), UTC_TIMESTAMP(6)
    FROM deliveries d
    WHERE d.id = NEW.delivery_id AND d.sent_at IS NOT NULL
      AND NEW.first_hit_at IS NOT NULL AND NEW.kind IN ('open', 'click');
CREATE OR REPLACE TRIGGER links_report_update AFTER UPDATE ON links
  FOR EACH ROW INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
    SELECT d.tenant_id, DATE(d.sent_at + INTERVAL 9 HOUR), UTC_TIMESTAMP(6)
    FROM deliveries d
    WHERE d.id = NEW.delivery_id AND d.sent_at IS NOT NULL
      AND OLD.first_hit_at IS NULL AND NEW.first_hit_at IS NOT NULL
      AND NEW.kind IN ('open', 'click');

-- a step removed: its messages' days count it as deleted
CREATE OR REPLACE TRIGGER scenario_steps_report_delete AFTER DELETE
  ON scenario_steps FOR EACH ROW
    INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
      SELECT DISTINCT d.tenant_id, DATE(d.sent_at + INTERVAL 9 HOUR),
        UTC_TIMESTAMP(6) FROM deliveries d FORCE INDEX (deliveries_scenario)
      WHERE d.tenant_id = OLD.tenant_id AND d.scenario_id = OLD.scenario_id
        AND d.step_id = OLD.id AND d.sent_at IS NOT NULL;

-- What the passes before this one left: every day with rows that was
-- never counted, and the last three days (the old passes recounted
-- them every time, so later rows may wait there).
INSERT IGNORE INTO report_dirty_days (tenant_id, day, marked_at)
  SELECT x.tenant_id, x.day, UTC_TIMESTAMP(6) FROM (
    SELECT tenant_id, DATE(received_at + INTERVAL 9 HOUR) AS day
      FROM tag_events GROUP BY tenant_id, day
    UNION SELECT tenant_id, DATE(captured_at + INTERVAL 9 HOUR)
      FROM leads WHERE captured_at IS NOT NULL GROUP BY 1, 2
    UNION SELECT tenant_id, DATE(abandoned_at + INTERVAL 9 HOUR)
      FROM leads WHERE abandoned_at IS NOT NULL GROUP BY 1, 2
    UNION SELECT tenant_id, DATE(converted_at + INTERVAL 9 HOUR)
      FROM leads WHERE converted_at IS NOT NULL GROUP BY 1, 2
    UNION SELECT tenant_id, DATE(sent_at + INTERVAL 9 HOUR)
      FROM deliveries WHERE sent_at IS NOT NULL GROUP BY 1, 2) x
  LEFT JOIN report_aggregations a ON a.tenant_id = x.tenant_id
    AND a.day = x.day
  WHERE a.aggregated_at IS NULL
    OR x.day >= DATE(NOW() + INTERVAL 9 HOUR) - INTERVAL 2 DAY;
