-- The ingest workload of ingest.sql, with every row sent twice, as a
-- producer that retries after a lost acknowledgement does. The retry is a
-- duplicate: count(*) still ends at clients × transactions.
\set seq :seq + 1
INSERT INTO events VALUES ('producer-' || :client_id, 1, :seq, 'payload');
INSERT INTO events VALUES ('producer-' || :client_id, 1, :seq, 'payload');
