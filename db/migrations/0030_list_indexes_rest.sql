-- 0030: the filters 0029 left walking (issue 13: every list an index
-- range scan for every filter the contract allows).
--
-- GET /api/v1/deliveries?date_field=created_at (or scheduled_at) read
-- the tenant's deliveries newest first and kept those in the range; the
-- suppression list's kind, reason, scope and campaign_id filters did the
-- same over the tenant's suppressions.  A delivery date has its index
-- now, as the leads' dates and the deliveries' sent_at have (tenant,
-- date: the range's rows read, then sorted); a suppression filter has
-- one like the deliveries' status (tenant, key, id: read backwards from
-- the cursor, in order, without a sort).

ALTER TABLE deliveries ADD KEY IF NOT EXISTS deliveries_created (tenant_id, created_at),
  ADD KEY IF NOT EXISTS deliveries_scheduled (tenant_id, scheduled_at);
ALTER TABLE suppressions ADD KEY IF NOT EXISTS suppressions_kind (tenant_id, kind, id),
  ADD KEY IF NOT EXISTS suppressions_reason (tenant_id, reason, id),
  ADD KEY IF NOT EXISTS suppressions_scope (tenant_id, scope, id),
  ADD KEY IF NOT EXISTS suppressions_campaign (tenant_id, campaign_id, id);
