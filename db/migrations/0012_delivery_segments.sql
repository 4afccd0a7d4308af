-- 0012: the SMS parts a delivery was sent as.
--
-- The estimate of a message (sms_segments) counts links and names at
-- their usual length; the contract points to the delivery for the real
-- count at send time.  formback-deliver stores it when an SMS leaves.
-- NULL: an email, or an SMS not sent.

ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS segments INT NULL
  COMMENT 'SMS parts of the text as sent; NULL for email or not sent';
