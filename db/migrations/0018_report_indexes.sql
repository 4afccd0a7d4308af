-- 0018: the tenant's events and messages of a time range, for the funnel
-- and formback-aggregate's days (tag_events_site leads with site_id, so
-- a range of all the tenant's sites walked every row of the tenant).
ALTER TABLE tag_events ADD KEY IF NOT EXISTS tag_events_tenant_time (tenant_id, received_at);
ALTER TABLE deliveries ADD KEY IF NOT EXISTS deliveries_tenant_sent (tenant_id, sent_at);
