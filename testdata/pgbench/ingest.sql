-- Ingest workload: every pgbench client is one producer that numbers its
-- rows 1, 2, 3, ... in its own variable.
--   pgbench -n -D seq=0 -f testdata/pgbench/ingest.sql -c 8 -t 1000
-- on the table
--   CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL,
--                        seq bigint NOT NULL, payload text)
--     WITH (ingest_producer = 'producer', ingest_sequence = 'seq',
--           ingest_epoch = 'producer_epoch');
-- ends with count(*) = clients × transactions.
\set seq :seq + 1
INSERT INTO events VALUES ('producer-' || :client_id, 1, :seq, 'payload');
