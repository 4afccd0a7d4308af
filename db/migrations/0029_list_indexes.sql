-- 0029: a list filtered by a key reads the rows of that key only (issue
-- 13: every list an index range scan for every filter the contract
-- allows).
--
-- GET /api/v1/leads?status=converted walked the tenant's leads newest
-- first (leads_tenant) and looked at each one's status: a few matches
-- among 100,000 leads read all 100,000 (270 ms); so did the deliveries'
-- filters.  The leads' campaign and site filters had their indexes
-- (tenant, key, id); the leads' status and the deliveries' status,
-- campaign and scenario have theirs now, read backwards from the cursor
-- like them, in order, without a sort.

ALTER TABLE leads ADD KEY IF NOT EXISTS leads_status (tenant_id, status, id);
ALTER TABLE deliveries ADD KEY IF NOT EXISTS deliveries_status (tenant_id, status, id),
  ADD KEY IF NOT EXISTS deliveries_campaign (tenant_id, campaign_id, id),
  ADD KEY IF NOT EXISTS deliveries_scenario (tenant_id, scenario_id, id);
