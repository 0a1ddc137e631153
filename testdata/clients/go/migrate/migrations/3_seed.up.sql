INSERT INTO accounts (email, balance) VALUES
	('ann@example.com', 100), ('ben@example.com', 50), ('cat@example.com', 0), ('dan@example.com', 10);
INSERT INTO transfers (from_id, to_id, amount, note)
SELECT f.id, t.id, v.amount, v.note
FROM (VALUES ('ann', 'ben', 30.00, 'rent'), ('ben', 'cat', 45.50, 'books'), ('ann', 'cat', 5.25, NULL), ('dan', 'ann', 10.00, 'refund'))
	AS v (src, dst, amount, note)
JOIN accounts f ON f.email = v.src || '@example.com'
JOIN accounts t ON t.email = v.dst || '@example.com';
