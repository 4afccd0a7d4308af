-- 0009: the rate ring as bytes.  Its digits were stored in an ascii
-- column while the admission statement computes them in the connection's
-- utf8mb4, so every admission converted the 732 characters on the way in
-- and again on the way out (RETURNING); a binary column takes them as
-- they are (about a fifth of the statement's cost).  MEMORY: the counts
-- of the last minute are kept by the copy.

ALTER TABLE rate_ring MODIFY ring VARBINARY(732) NOT NULL;
