-- 0039: a provider's receipt finds its delivery by the provider's
-- message id on an index (issue 44).
--
-- Twilio's status callbacks name only the message's sid, and every SMS
-- sent through Twilio has several (sent, delivered), so the receipt's
-- look-up "d.id = ? OR d.provider_id = ?" (src/db/sending.c, hook_find)
-- reads one index entry for each arm instead of every delivery, and
-- locks only the row it finds.
CREATE INDEX IF NOT EXISTS deliveries_provider_id ON deliveries (provider_id);
