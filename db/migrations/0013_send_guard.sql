-- 0013: what formback-deliver knows of a send when it is killed, and the
-- conversions it looks for before one (issue 11; formback-deliver(8)).
--
-- attempt_started_at is stamped on the claim token right before the
-- provider is called: a claim whose lease runs out with it set may have
-- left (failed, outcome_unknown: never sent again blindly); without it
-- the row was never tried and goes back to scheduled.  It stays on a sent
-- row, the moment the send began (sent_after_conversion compares it with
-- the lead's converted_at).
ALTER TABLE deliveries
  ADD COLUMN IF NOT EXISTS attempt_started_at DATETIME(6) NULL
    COMMENT 'the provider call began (claimed rows); cleared when rescheduled'
    AFTER claim_until;

-- The conversions still in the intake queue, found by tenant, site and
-- visitor right before a send.
ALTER TABLE tag_ingest
  ADD KEY IF NOT EXISTS tag_ingest_conversion (event_type, tenant_id, site_id, visitor_id);
