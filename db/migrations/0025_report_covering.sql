-- 0025: the funnel (counted from the raw events of a range) and
-- formback-aggregate's days read every event of a tenant's range; with
-- tag_events_tenant_time (tenant_id, received_at) each of them was a
-- look-up of its row.  This key holds all they read (site, campaign,
-- type, session, visitor), so the range is read from the key alone.
ALTER TABLE tag_events
  ADD KEY IF NOT EXISTS tag_events_tenant_span (tenant_id, received_at, site_id,
    campaign_id, event_type, session_id, visitor_id),
  DROP KEY IF EXISTS tag_events_tenant_time;
