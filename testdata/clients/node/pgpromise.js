// pg-promise against the server: a schema script in a transaction, the
// helpers' multi-row INSERT and UPDATE ... FROM (VALUES ...) AS v(...)
// built from ColumnSets, its query formatting, tasks, transactions with
// savepoints and modes, prepared statements and its result errors. See
// internal/clienttest/orm_node_test.go.
'use strict'
const pgPromise = require('pg-promise')
const { connection, run, eq } = require('./matrix')
const { authors, books, rejectsAs } = require('./orm')

const pgp = pgPromise({
  capSQL: true,
  ...(process.env.ORM_LOG ? { query: (e) => console.log(e.query) } : {}),
})
const { ColumnSet, insert, update, values } = pgp.helpers
const { QueryResultError, queryResultErrorCode } = pgp.errors
// pg-promise brings its own pg: a server error is that copy's DatabaseError.
const { DatabaseError } = pgp.pg
const db = pgp({ ...connection, max: 2 })

const schema = `
  CREATE TYPE book_status AS ENUM ('draft', 'published');
  CREATE TABLE authors (
    id serial PRIMARY KEY,
    name varchar(100) NOT NULL UNIQUE,
    email text,
    born date);
  CREATE TABLE books (
    id serial PRIMARY KEY,
    title text NOT NULL,
    status book_status NOT NULL DEFAULT 'draft',
    price numeric(8,2),
    pages int,
    meta jsonb,
    tags text[],
    author_id int NOT NULL REFERENCES authors ON DELETE CASCADE);
  CREATE FUNCTION books_of(author text) RETURNS SETOF books LANGUAGE sql STABLE AS
    $$ SELECT b.* FROM books b JOIN authors a ON a.id = b.author_id WHERE a.name = author ORDER BY b.pages $$`

const authorColumns = new ColumnSet(['name', 'email', { name: 'born', cast: 'date' }], { table: 'authors' })
const bookColumns = new ColumnSet(['title', { name: 'status', cast: 'book_status' }, { name: 'price', cast: 'numeric' }, { name: 'pages', cast: 'int' },
  { name: 'meta', mod: ':json', cast: 'jsonb' }, { name: 'tags', cast: 'text[]' }, 'author_id'], { table: 'books' })
// The multi-row update's columns: ?id only matches rows, the others are set.
const priceColumns = new ColumnSet(['?id', { name: 'price', cast: 'numeric' }, { name: 'pages', cast: 'int' }], { table: 'books' })

const titles = (rows) => rows.map((b) => b.title)
const byName = {}

run([
  ['schema', async () => {
    await db.tx('schema', (t) => t.none(schema))
    eq(await db.map("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", [], (r) => r.tablename), ['authors', 'books'], 'tables')
  }],
  ['helpers.insert', async () => {
    const q = insert(authors, authorColumns) + ' RETURNING id, name'
    eq(q.startsWith('INSERT INTO "authors"("name","email","born") VALUES('), true, 'generated INSERT')
    for (const a of await db.many(q)) {
      byName[a.name] = a.id
    }
    eq(Object.values(byName).map((id) => typeof id), ['number', 'number', 'number'], 'ids')
    const rows = books.map((b) => ({ title: b.title, status: b.status, price: b.price, pages: b.pages, meta: { words: b.pages * 300 },
      tags: [b.status, b.author.split(' ')[0]], author_id: byName[b.author] }))
    eq((await db.result(insert(rows, bookColumns))).rowCount, books.length, 'multi-row INSERT')
    const nana = await db.one('SELECT * FROM books WHERE title = ${title}', { title: 'Nana' })
    eq([nana.status, nana.price, nana.pages, nana.meta, nana.tags], ['draft', '7.25', 464, { words: 139200 }, ['draft', 'Émile']], 'Nana')
    const ada = await db.one('SELECT name, email, born::text FROM authors WHERE id = $1', byName['Ada Lovelace'])
    eq(ada, { name: 'Ada Lovelace', email: 'ada@example.com', born: '1815-12-10' }, 'one')
    // values() alone, for a VALUES list in a query of one's own.
    const v = values([{ name: 'Ada Lovelace', email: null, born: null }], authorColumns)
    eq(await db.one(`SELECT count(*)::int AS n FROM (VALUES ${v}) AS v(name, email, born) JOIN authors USING (name)`), { n: 1 }, 'values()')
  }],
  ['formatting and filters', async () => {
    eq(titles(await db.any('SELECT title FROM $1:name WHERE status = $2 AND price > $3 ORDER BY price DESC', ['books', 'published', 8])),
      ['Notes on the Engine', 'Germinal', 'Thérèse Raquin'], 'published, price > 8')
    eq(titles(await db.any('SELECT title FROM books WHERE title ILIKE ${pattern} OR pages < ${pages} ORDER BY title', { pattern: 'the%', pages: 100 })),
      ['Notes on the Engine', 'The Last Man'], 'named parameters')
    eq(titles(await db.any('SELECT title FROM books WHERE title IN ($1:csv) ORDER BY title DESC', [['Nana', 'Germinal', 'Missing']])), ['Nana', 'Germinal'], ':csv')
    eq(titles(await db.any('SELECT $1:name FROM books WHERE tags @> $2 AND (meta->>$3)::int > $4 ORDER BY 1 DESC', ['title', ['Mary'], 'words', 50000])),
      ['The Last Man', 'Frankenstein'], 'array and jsonb parameters')
    eq(await db.one('SELECT count(*) FROM books WHERE status = $1', 'draft', (r) => Number(r.count)), 3, 'one with a transform')
    eq(await db.oneOrNone('SELECT id FROM books WHERE title = $1', 'Missing'), null, 'oneOrNone')
    eq(titles(await db.func('books_of', ['Mary Shelley'])), ['Mathilda', 'Frankenstein', 'The Last Man'], 'func')
    const perAuthor = await db.any(`SELECT a.name, count(*)::int AS n, sum(b.price) AS total FROM books b JOIN authors a ON a.id = b.author_id
      GROUP BY a.id HAVING count(*) > $1 ORDER BY a.id`, [1])
    eq(perAuthor, [{ name: 'Émile Zola', n: 3, total: '25.64' }, { name: 'Mary Shelley', n: 3, total: '24.75' }], 'GROUP BY ... HAVING')
  }],
  ['joins and pagination', async () => {
    const rows = await db.any(`SELECT a.name, b.title FROM authors a LEFT JOIN books b ON b.author_id = a.id AND b.status = 'published'
      ORDER BY a.id, b.title`)
    eq(rows.map((r) => [r.name, r.title]),
      [['Ada Lovelace', 'Notes on the Engine'], ['Émile Zola', 'Germinal'], ['Émile Zola', 'Thérèse Raquin'], ['Mary Shelley', 'Frankenstein']], 'LEFT JOIN')
    const page = new pgp.PreparedStatement({ name: 'books-page', text: 'SELECT title FROM books ORDER BY pages DESC, id LIMIT $1 OFFSET $2' })
    const pages = []
    for (let offset = 0; offset < books.length; offset += 3) {
      page.values = [3, offset]
      pages.push(titles(await db.any(page)))
    }
    eq(pages, [['Germinal', 'The Last Man', 'Nana'], ['Frankenstein', 'Thérèse Raquin', 'Mathilda'], ['Notes on the Engine']], 'pages of 3, prepared once')
  }],
  ['helpers.update', async () => {
    // One row: UPDATE ... SET from an object, with a WHERE of one's own.
    const one = update({ status: 'published' }, ['status'], 'books') + pgp.as.format(' WHERE title = $1 RETURNING title, status', ['Mathilda'])
    eq(await db.one(one), { title: 'Mathilda', status: 'published' }, 'one row')
    // Many rows: UPDATE "books" AS t SET ... FROM (VALUES ...) AS v(...).
    const ids = await db.map('SELECT id, title FROM books ORDER BY id', [], (r) => [r.title, r.id])
    const id = Object.fromEntries(ids)
    const changes = [{ id: id.Germinal, price: '10.49', pages: 600 }, { id: id.Nana, price: '7.75', pages: 470 }, { id: id.Frankenstein, price: '5.50', pages: 288 }]
    const q = update(changes, priceColumns) + ' WHERE v.id = t.id'
    eq(q.startsWith('UPDATE "books" AS t SET "price"=v."price","pages"=v."pages" FROM (VALUES('), true, 'generated UPDATE')
    eq(q.includes(') AS v("id","price","pages")'), true, 'the VALUES alias')
    eq((await db.result(q)).rowCount, 3, 'rows updated')
    eq(await db.any('SELECT title, price, pages FROM books WHERE id IN ($1:csv) ORDER BY id', [changes.map((c) => c.id)]),
      [{ title: 'Germinal', price: '10.49', pages: 600 }, { title: 'Nana', price: '7.75', pages: 470 }, { title: 'Frankenstein', price: '5.50', pages: 288 }], 'updated rows')
    eq((await db.result('DELETE FROM books WHERE title = $1', 'Mathilda')).rowCount, 1, 'delete')
  }],
  ['tasks', async () => {
    // A task holds one connection for all its queries.
    const [pid1, pid2, n] = await db.task('one connection', async (t) => {
      const a = await t.one('SELECT pg_backend_pid() AS pid')
      await t.none('SET LOCAL work_mem = $1', ['8MB'])
      const b = await t.one('SELECT pg_backend_pid() AS pid')
      return [a.pid, b.pid, (await t.one('SELECT count(*)::int AS n FROM books')).n]
    })
    eq([pid1 === pid2, n], [true, 6], 'same backend')
    // multi: the result sets of one simple Query of several statements.
    eq(await db.multi('SELECT count(*)::int AS n FROM authors; SELECT count(*)::int AS n FROM books'), [[{ n: 3 }], [{ n: 6 }]], 'multi')
    const sums = await db.task(async (t) => {
      const out = []
      for (const a of await t.any('SELECT id FROM authors ORDER BY id')) {
        out.push(await t.one('SELECT coalesce(sum(pages), 0)::int AS s FROM books WHERE author_id = $1', a.id, (r) => r.s))
      }
      return out
    })
    eq(sums, [60, 1342, 767], 'a query per row in one task')
  }],
  ['transactions', async () => {
    await rejectsAs(db.tx(async (t) => {
      await t.none('INSERT INTO books (title, author_id) VALUES ($1, $2)', ['Lost', byName['Ada Lovelace']])
      eq(await t.one("SELECT count(*)::int AS n FROM books WHERE title = 'Lost'"), { n: 1 }, 'visible inside')
      throw new RangeError('roll it back')
    }), RangeError, 'a transaction that throws')
    eq(await db.one("SELECT count(*)::int AS n FROM books WHERE title = 'Lost'"), { n: 0 }, 'rolled back')
    // A nested tx is a savepoint.
    await db.tx(async (t) => {
      await t.none('INSERT INTO books (title, status, price, pages, author_id) VALUES ($1, $2, $3, $4, $5)', ["L'Assommoir", 'published', '6.60', 576, byName['Émile Zola']])
      await rejectsAs(t.tx(async (t2) => {
        await t2.none('UPDATE books SET pages = 1')
        throw new RangeError('to the savepoint')
      }), RangeError, 'the nested transaction')
      await rejectsAs(t.tx((t2) => t2.none('INSERT INTO authors (name) VALUES ($1)', ['Émile Zola'])), DatabaseError, 'a unique violation in a savepoint')
      eq(await t.one('SELECT sum(pages)::int AS s FROM books'), { s: 2745 }, 'after the savepoints')
    })
    eq(await db.one('SELECT count(*)::int AS n FROM books WHERE author_id = $1', byName['Émile Zola']), { n: 4 }, 'committed')
    const { TransactionMode, isolationLevel } = pgp.txMode
    const readOnly = new TransactionMode({ tiLevel: isolationLevel.repeatableRead, readOnly: true })
    const err = await rejectsAs(db.tx({ mode: readOnly }, async (t) => {
      eq(await t.one('SHOW transaction_isolation'), { transaction_isolation: 'repeatable read' }, 'isolation')
      await t.none('DELETE FROM books')
    }), DatabaseError, 'a write in a read-only transaction')
    eq(err.code, '25006', 'read-only SQLSTATE')
    eq(await db.one('SELECT count(*)::int AS n FROM books'), { n: 7 }, 'nothing deleted')
  }],
  ['errors', async () => {
    const dup = await rejectsAs(db.none(insert({ name: 'Ada Lovelace', email: null, born: null }, authorColumns)), DatabaseError, 'duplicate name')
    eq([dup.code, dup.constraint, dup.table, dup.detail], ['23505', 'authors_name_key', 'authors', 'Key (name)=(Ada Lovelace) already exists.'], 'unique violation')
    const none = await rejectsAs(db.one('SELECT * FROM books WHERE title = $1', 'Missing'), QueryResultError, 'one of none')
    eq(none.code, queryResultErrorCode.noData, 'noData')
    const many = await rejectsAs(db.one('SELECT * FROM books'), QueryResultError, 'one of many')
    eq(many.code, queryResultErrorCode.multiple, 'multiple')
    await rejectsAs(db.none('SELECT 1'), QueryResultError, 'none that returns a row')
    const syntax = await rejectsAs(db.any('SELECT FROM WHERE'), DatabaseError, 'a syntax error')
    eq(syntax.code, '42601', 'syntax error SQLSTATE')
    eq(await db.one('SELECT count(*)::int AS n FROM authors'), { n: 3 }, 'the pool still works')
  }],
  ['cascade and drop', async () => {
    await db.none('DELETE FROM authors WHERE name = $1', 'Mary Shelley')
    eq(await db.one('SELECT count(*)::int AS n FROM books'), { n: 5 }, 'books deleted with their author')
    await db.none('DROP TABLE books, authors CASCADE; DROP TYPE book_status; DROP FUNCTION IF EXISTS books_of(text)')
    eq(await db.one("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"), { n: 0 }, 'tables left')
  }],
  ['close', () => pgp.end()],
]).then(() => { if (process.exitCode) pgp.end() })
