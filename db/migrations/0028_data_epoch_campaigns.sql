-- 0028: the tenant's data epoch follows its campaigns' names too (issue 13).
--
-- A worker keeps the names of the sites and campaigns the lead list nests
-- (GET /api/v1/leads: site name and domain, campaign key and name) and
-- uses one again only while the tenant's data epoch is the one its
-- admission read when the name was read (0027).  A site's change bumps
-- the epoch (0027); so does, here, a change of a campaign's key or name
-- and a campaign's removal, in the same transaction, whatever path made
-- it (the snippets' triggers of 0010 happen to bump it too; these do not
-- depend on them).

CREATE OR REPLACE TRIGGER campaigns_data_epoch_update AFTER UPDATE ON campaigns FOR EACH ROW
  UPDATE rate_ring SET data_epoch = data_epoch + 1
  WHERE tenant_id = NEW.tenant_id
    AND NOT (NEW.name <=> OLD.name AND NEW.campaign_key <=> OLD.campaign_key);

CREATE OR REPLACE TRIGGER campaigns_data_epoch_delete AFTER DELETE ON campaigns FOR EACH ROW
  UPDATE rate_ring SET data_epoch = data_epoch + 1 WHERE tenant_id = OLD.tenant_id;
