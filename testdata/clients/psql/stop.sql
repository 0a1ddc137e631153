-- Inserts :id, then a row that violates the primary key, then :id + 1.
-- internal/clienttest counts which of the two made it, with and without
-- ON_ERROR_STOP and --single-transaction.
INSERT INTO matrix (id) VALUES (:id);
INSERT INTO matrix (id) VALUES (1);
INSERT INTO matrix (id) VALUES (:id + 1);
