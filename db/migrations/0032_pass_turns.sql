-- 0032: cron passes bounded by time and fair across tenants (issue 40;
-- pass.h).
--
-- What a pass left for the next one (its budget spent, or --limit met),
-- beside what it did: formbackctl status shows both.
ALTER TABLE cron_passes ADD COLUMN IF NOT EXISTS left_items BIGINT NULL
  AFTER items;

-- The turns over tenants: a pass finds the tenants with due work with
-- one dive a tenant into (state, tenant, due time) -- whatever its
-- backlog -- and takes each one's oldest first on the same index, a
-- share a tenant a round.  The leads' (formback-abandon) is made with
-- their quarantine in 0034.
ALTER TABLE deliveries ADD KEY IF NOT EXISTS deliveries_due_tenant
  (status, tenant_id, scheduled_at, id);
