-- 0019: messages sent after their lead had converted, per day (the daily
-- report's sent_after_conversion, beyond the contract; the target is 0).
ALTER TABLE report_message_days
  ADD COLUMN IF NOT EXISTS after_conversion INT NOT NULL DEFAULT 0 AFTER converted;
