-- What an application does first against a database its migration made,
-- or that a schema-only dump of it restored: it must behave the same.
SELECT app.register('carol@example.com', 'Carol', 'pw') IS NOT NULL AS registered;
SELECT app.place_order('CAROL@example.com', 500) > 0 AS placed;
UPDATE app.orders SET status = 'paid' WHERE total_cents = 500;
UPDATE app.order_summary SET status = 'cancelled' WHERE total = '5.00';
SELECT * FROM app.user_totals();
SELECT email, status, total FROM app.order_summary ORDER BY total;
SELECT table_name, op, row_data->>'status' AS status FROM audit.log ORDER BY id;
SELECT count(*) AS pending FROM app.pending_ids();
SELECT app.cents_to_text(123456);
SELECT obj_description('app.users'::regclass, 'pg_class') AS comment;
SELECT obj_description('app.register'::regproc, 'pg_proc') AS register, obj_description('app.mark_paid'::regproc, 'pg_proc') AS mark_paid;
