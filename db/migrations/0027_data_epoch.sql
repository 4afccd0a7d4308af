-- 0027: the tenant's data epoch (issue 13).
--
-- A worker keeps its answers of GET /api/v1/sites/{site_id} and uses one
-- again only while the tenant's data epoch is the one its admission read
-- when it was made.  Every change to a site row (its fields, its
-- snippets, which triggers on campaigns keep on it (0010), its sending
-- hold) bumps the epoch in the same transaction, here, whatever path
-- made it; the rate admission every API request goes through returns
-- it with the same statement (src/db/core.c).  No row yet: no admission
-- yet, so no worker holds an answer of the tenant.

ALTER TABLE rate_ring ADD COLUMN IF NOT EXISTS data_epoch BIGINT NOT NULL DEFAULT 0
  COMMENT 'bumped by every change to a site of the tenant (triggers below)';

CREATE OR REPLACE TRIGGER sites_data_epoch_update AFTER UPDATE ON sites FOR EACH ROW
  UPDATE rate_ring SET data_epoch = data_epoch + 1 WHERE tenant_id = NEW.tenant_id;

CREATE OR REPLACE TRIGGER sites_data_epoch_delete AFTER DELETE ON sites FOR EACH ROW
  UPDATE rate_ring SET data_epoch = data_epoch + 1 WHERE tenant_id = OLD.tenant_id;
