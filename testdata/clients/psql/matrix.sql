-- The client matrix for psql (see internal/clienttest). Run with -X -f;
-- matrix.out is PostgreSQL 15's output. Errors print only their SQLSTATE.
\set VERBOSITY sqlstate
SET TimeZone = 'UTC';

CREATE TABLE matrix (
  id int4 PRIMARY KEY,
  c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,
  c_float4 float4, c_float8 float8, c_numeric numeric,
  c_text text, c_varchar varchar(10), c_char char(5), c_bytea bytea,
  c_date date, c_timestamp timestamp, c_timestamptz timestamptz,
  c_uuid uuid, c_interval interval);

-- psql's parameters are its variables, interpolated as quoted literals.
\set v_text 'héllo, "wörld" \\ ''q'''
\set v_numeric 12345678901234567890.123456789
\set v_interval '1 year 2 mons 3 days 04:05:06.789'
INSERT INTO matrix VALUES (1, true, -32768, 2147483647, -9223372036854775808,
  3.14159, 0.1, :v_numeric, :'v_text', 'abc', 'ab', '\x00ff10', '2024-02-29',
  '2024-02-29 13:45:56.123456', '2024-02-29 13:45:56.123456+00',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', :'v_interval');
INSERT INTO matrix (id) VALUES (2);
SELECT * FROM matrix ORDER BY id;
\x on
SELECT * FROM matrix WHERE id = 1;
\x off
SELECT c_text = :'v_text' AS text_unchanged, c_numeric = :v_numeric AS numeric_unchanged,
  c_interval = :'v_interval' AS interval_unchanged, c_bytea = '\x00ff10' AS bytea_unchanged,
  c_char = 'ab' AS char_unchanged
  FROM matrix WHERE id = 1;
SET TimeZone = 'Asia/Kolkata';
SELECT c_timestamptz, c_timestamp FROM matrix WHERE id = 1;
SET TimeZone = 'UTC';

-- A transaction that commits and one that rolls back.
BEGIN;
INSERT INTO matrix (id, c_text) VALUES (3, 'committed');
COMMIT;
BEGIN;
INSERT INTO matrix (id, c_text) VALUES (4, 'rolled back');
SELECT count(*) FROM matrix WHERE id = 4;
ROLLBACK;
SELECT id, c_text FROM matrix WHERE id IN (3, 4) ORDER BY id;

-- A unique violation, then the session goes on.
INSERT INTO matrix (id) VALUES (1);
\echo :LAST_ERROR_SQLSTATE
BEGIN;
INSERT INTO matrix (id) VALUES (1);
SELECT 1;
ROLLBACK;
SELECT count(*) FROM matrix;

-- A prepared statement, reused.
PREPARE ins (int4, text) AS INSERT INTO matrix (id, c_text) VALUES ($1, $2);
EXECUTE ins(10, 'p10');
EXECUTE ins(11, 'p11');
EXECUTE ins(12, 'p12');
EXECUTE ins(13, 'p13');
EXECUTE ins(14, 'p14');
EXECUTE ins(15, 'p15');
EXECUTE ins(16, 'p16');
EXECUTE ins(17, 'p17');
DEALLOCATE ins;
SELECT id, c_text FROM matrix WHERE id BETWEEN 10 AND 17 ORDER BY id;

-- COPY FROM STDIN in text and CSV, \copy from a file, COPY and \copy out.
COPY matrix (id, c_text, c_numeric, c_date) FROM STDIN;
20	tab\there	1.25	2024-01-01
21	\N	-0.5	\N
\.
COPY matrix (id, c_text, c_numeric, c_date) FROM STDIN (FORMAT csv);
22,"csv, ""quoted""",7,2024-12-31
23,,,
\.
\copy matrix (id, c_text, c_bytea, c_timestamptz) from 'copy.tsv'
COPY (SELECT id, c_text, c_numeric, c_date FROM matrix WHERE id >= 20 ORDER BY id) TO STDOUT;
COPY (SELECT id, c_text, c_numeric, c_date FROM matrix WHERE id >= 20 ORDER BY id) TO STDOUT (FORMAT csv, HEADER);
\copy (SELECT id, c_text, c_bytea, c_timestamptz FROM matrix WHERE id >= 30 ORDER BY id) to stdout
\copy matrix (id, c_text, c_int8) to stdout with (format csv)

-- COPY that fails part way: psql is still sending data when the error
-- comes, and nothing of the COPY stays.
COPY matrix (id, c_text) FROM STDIN;
40	forty
x	not an int4
42	forty-two
\.
COPY matrix (id, c_text) FROM STDIN (FORMAT csv);
43,forty-three
1,a duplicate key
\.
BEGIN;
COPY matrix (id, c_text) FROM STDIN;
44	forty-four
44	forty-four again
\.
SELECT 1;
ROLLBACK;
SELECT count(*) FROM matrix WHERE id BETWEEN 40 AND 44;
