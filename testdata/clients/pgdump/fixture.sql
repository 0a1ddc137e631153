-- The database TestPgDump dumps: keys, constraints, sequences that have
-- moved on, defaults, an index, a view that sorts before the table it
-- reads, and values that are easy to mangle.
CREATE TABLE authors (
    id serial PRIMARY KEY,
    name text NOT NULL,
    email varchar(100) UNIQUE,
    born date,
    CHECK (char_length(name) > 0)
);
CREATE TABLE books (
    id bigserial PRIMARY KEY,
    author_id int NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
    title text NOT NULL DEFAULT 'untitled',
    price numeric(10,2) CHECK (price >= 0),
    published timestamptz DEFAULT now(),
    cover bytea,
    tags text[],
    meta jsonb,
    UNIQUE (author_id, title)
);
CREATE INDEX books_price_idx ON books (price);
CREATE VIEW a_cheap_books AS SELECT id, title, price FROM books WHERE price < 10;
CREATE SEQUENCE counter AS integer START 10 INCREMENT 3;
CREATE SEQUENCE unused START 5;

INSERT INTO authors (name, email, born) VALUES
    ('Ann', 'ann@example.com', '1970-01-02'),
    ('Bob "B" O''Neil', NULL, NULL),
    (E'C\u00e9\\tab', 'c@x', '2000-02-29');
INSERT INTO books (author_id, title, price, published, cover, tags, meta) VALUES
    (1, 'First', 9.99, '2020-01-01 10:00:00+00', '\x00ff10', ARRAY['a', 'b c', 'd"e'], '{"k": [1, 2, {"x": null}], "s": "t\\n"}'),
    (1, 'Second', 19.50, '2021-06-15 12:30:45.123456+02', NULL, '{}', 'null'),
    (2, 'Third', NULL, NULL, '\x', NULL, NULL),
    (3, E'Line\nbreak\\back\ttab', 0, '2022-12-31 23:59:59+00', '\xdeadbeef', ARRAY[NULL, 'x'], '[1, "two"]');
INSERT INTO books (author_id, title) VALUES (2, DEFAULT);
-- Sequences that have moved on: a deleted row's id is not taken again.
DELETE FROM books WHERE title = 'Third';
SELECT nextval('counter'), nextval('counter');
SELECT setval('authors_id_seq', 40);
