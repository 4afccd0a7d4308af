-- 0010: the campaigns a site's snippets name, kept on the site row.
--
-- GET /sites/{site_id} lists one installation snippet per campaign of the
-- site that is not archived.  It read them with a join on every request;
-- the list is now kept in sites.snippet_campaigns (oldest campaign first)
-- by triggers on campaigns, in the same transaction as the campaign's
-- change, so the read is one primary-key look-up.  NULL: none.

ALTER TABLE sites ADD COLUMN IF NOT EXISTS snippet_campaigns LONGTEXT NULL
  COMMENT 'JSON [{"id","key","name"}] of the campaigns not archived, by id; kept by triggers';

-- The one definition of the list: site_snippets_refresh(site) rewrites
-- it for one site (NULL: none).
CREATE OR REPLACE PROCEDURE site_snippets_refresh(p_site UUID)
  UPDATE sites s SET snippet_campaigns = (
    SELECT JSON_ARRAYAGG(JSON_OBJECT('id', c.id, 'key', c.campaign_key, 'name', c.name)
      ORDER BY c.id)
    FROM campaigns c WHERE c.tenant_id = s.tenant_id AND c.site_id = s.id
      AND c.status <> 'archived')
  WHERE s.id = p_site;

CREATE OR REPLACE TRIGGER campaigns_snippets_insert AFTER INSERT ON campaigns FOR EACH ROW
  CALL site_snippets_refresh(NEW.site_id);

-- only a change the snippets show (a campaign never moves to another site)
CREATE OR REPLACE TRIGGER campaigns_snippets_update AFTER UPDATE ON campaigns FOR EACH ROW
  CALL site_snippets_refresh(IF(NEW.name <=> OLD.name
    AND NEW.campaign_key <=> OLD.campaign_key AND NEW.status <=> OLD.status,
    NULL, NEW.site_id));

CREATE OR REPLACE TRIGGER campaigns_snippets_delete AFTER DELETE ON campaigns FOR EACH ROW
  CALL site_snippets_refresh(OLD.site_id);

-- the sites of today: the list of site_snippets_refresh(), for all at once
UPDATE sites s SET snippet_campaigns = (
  SELECT JSON_ARRAYAGG(JSON_OBJECT('id', c.id, 'key', c.campaign_key, 'name', c.name)
    ORDER BY c.id)
  FROM campaigns c WHERE c.tenant_id = s.tenant_id AND c.site_id = s.id
    AND c.status <> 'archived');
