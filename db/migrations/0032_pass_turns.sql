-- 0032: cron passes bounded by time and fair across tenants (issue 40;
-- pass.h).
--
-- What a pass left for the next one (its budget spent, or --limit met),
-- beside what it did: formbackctl status shows both.
ALTER TABLE cron_passes ADD COLUMN IF NOT EXISTS left_items BIGINT NULL
  AFTER items;

-- The turns over tenants: a pass finds the tenants with due work by a
-- loose scan of (state, tenant, due time) -- one index dive a tenant,
-- whatever its backlog -- and takes each one's oldest first on the same
-- index, a share a tenant a round.
ALTER TABLE leads ADD KEY IF NOT EXISTS leads_abandon_tenant
  (status, tenant_id, last_activity_at, id);
ALTER TABLE deliveries ADD KEY IF NOT EXISTS deliveries_due_tenant
  (status, tenant_id, scheduled_at, id);
