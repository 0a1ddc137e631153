// Knex against the server: migrations go up and down one at a time, latest
// and rollback by batch, under Knex's own lock table, and the query builder
// runs CRUD, joins, filters, ordering, pagination, upserts, transactions
// with savepoints and a unique violation. See
// internal/clienttest/orm_node_test.go.
'use strict'
const Knex = require('knex')
const { DatabaseError } = require('pg')
const { connection, run, eq } = require('./matrix')
const { authors, books, rejectsAs } = require('./orm')

const knex = Knex({
  client: 'pg',
  connection: { ...connection, ssl: false },
  pool: { min: 0, max: 2 },
})
if (process.env.ORM_LOG) {
  knex.on('query', (q) => console.log(q.sql, q.bindings || []))
}

// The migrations, in order; Knex runs each in a transaction of its own.
const migrations = {
  '001_authors_books': {
    up: async (k) => {
      await k.schema.createTable('authors', (t) => {
        t.increments('id')
        t.string('name', 100).notNullable().unique()
        t.string('email')
        t.date('born')
        t.timestamps(true, true)
      })
      await k.schema.createTable('books', (t) => {
        t.increments('id')
        t.string('title').notNullable()
        t.enu('status', ['draft', 'published'], { useNative: true, enumName: 'book_status' }).notNullable().defaultTo('draft')
        t.decimal('price', 8, 2)
        t.integer('pages')
        t.jsonb('meta')
        t.specificType('tags', 'text[]')
        t.integer('author_id').notNullable().references('id').inTable('authors').onDelete('CASCADE')
        t.index(['status', 'pages'])
      })
    },
    down: async (k) => {
      await k.schema.dropTable('books')
      await k.schema.dropTable('authors')
      await k.raw('DROP TYPE book_status')
    },
  },
  '002_isbn_and_wider_pages': {
    up: (k) => k.schema.alterTable('books', (t) => {
      t.string('isbn', 20).unique()
      t.bigInteger('pages').notNullable().defaultTo(0).alter()
      t.renameColumn('meta', 'details')
    }),
    down: (k) => k.schema.alterTable('books', (t) => {
      t.dropUnique(['isbn'])
      t.dropColumn('isbn')
      t.integer('pages').nullable().alter()
      t.renameColumn('details', 'meta')
    }),
  },
  '003_author_stats': {
    up: (k) => k.raw(`CREATE VIEW author_stats AS
      SELECT a.id, a.name, count(b.id) AS books, coalesce(sum(b.pages), 0) AS pages
      FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id, a.name`),
    down: (k) => k.raw('DROP VIEW author_stats'),
  },
}
const migrationSource = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
}
const migrateConfig = { migrationSource }

const applied = async () => (await knex('knex_migrations').orderBy('id').select('name', 'batch')).map((m) => [m.name, m.batch])
const columns = async (table) => Object.keys(await knex(table).columnInfo()).sort()
const titles = (rows) => rows.map((b) => b.title)
const byName = {}

run([
  ['migrate up and down', async () => {
    eq(await knex.migrate.currentVersion(migrateConfig), 'none', 'version before')
    const [up1] = await knex.migrate.up(migrateConfig)
    eq(up1, 1, 'batch of the first up')
    eq(await knex.schema.hasTable('books'), true, 'books created')
    eq(await columns('books'), ['author_id', 'id', 'meta', 'pages', 'price', 'status', 'tags', 'title'], 'books columns')
    await knex.migrate.up(migrateConfig)
    eq(await columns('books'), ['author_id', 'details', 'id', 'isbn', 'pages', 'price', 'status', 'tags', 'title'], 'after 002')
    const info = await knex('books').columnInfo()
    eq([info.pages.type, info.pages.nullable, info.pages.defaultValue, info.isbn.type, info.isbn.maxLength], ['bigint', false, "'0'::bigint", 'character varying', 20], 'altered columns')
    eq(await applied(), [['001_authors_books', 1], ['002_isbn_and_wider_pages', 2]], 'one batch each')
    await knex.migrate.down(migrateConfig)
    eq(await columns('books'), ['author_id', 'id', 'meta', 'pages', 'price', 'status', 'tags', 'title'], 'after 002 down')
    const after = await knex('books').columnInfo('pages')
    eq([after.type, after.nullable, after.defaultValue], ['integer', true, null], 'pages back')
    await knex.migrate.down(migrateConfig)
    eq([await knex.schema.hasTable('books'), await knex.schema.hasTable('authors')], [false, false], 'tables dropped')
    eq((await knex.raw("SELECT count(*)::int AS n FROM pg_type WHERE typname = 'book_status'")).rows, [{ n: 0 }], 'enum type dropped')
    eq(await applied(), [], 'nothing applied')
  }],
  ['migrate latest and rollback', async () => {
    const [batch, log] = await knex.migrate.latest(migrateConfig)
    eq([batch, log], [1, Object.keys(migrations)], 'latest')
    eq(await knex.migrate.status(migrateConfig), 0, 'status: nothing pending')
    eq(await knex.migrate.currentVersion(migrateConfig), '003', 'version')
    const [done, pending] = await knex.migrate.list(migrateConfig)
    eq([done.map((m) => m.name), pending], [Object.keys(migrations), []], 'list')
    eq(await knex.migrate.latest(migrateConfig), [1, []], 'latest again does nothing')
    const [rolled, rlog] = await knex.migrate.rollback(migrateConfig)
    eq([rolled, rlog], [1, Object.keys(migrations).reverse()], 'rollback of the batch')
    eq(await knex.migrate.status(migrateConfig), -3, 'status: three pending')
    eq(await knex.schema.hasTable('authors'), false, 'rolled back')
    eq((await knex.migrate.latest(migrateConfig))[0], 1, 'latest once more')
    eq(await knex('knex_migrations_lock').select('is_locked'), [{ is_locked: 0 }], 'the lock is free')
  }],
  ['insert', async () => {
    for (const a of await knex('authors').insert(authors).returning(['id', 'name'])) {
      byName[a.name] = a.id
    }
    eq(Object.values(byName).map((id) => typeof id), ['number', 'number', 'number'], 'ids from RETURNING')
    const rows = books.map((b) => ({ title: b.title, status: b.status, price: b.price, pages: b.pages, author_id: byName[b.author],
      details: { words: b.pages * 300 }, tags: [b.status, b.author.split(' ')[0]] }))
    eq((await knex('books').insert(rows, ['id'])).length, books.length, 'multi-row insert')
    const nana = await knex('books').where({ title: 'Nana' }).first()
    eq([nana.status, nana.price, nana.pages, nana.details, nana.tags, nana.isbn], ['draft', '7.25', '464', { words: 139200 }, ['draft', 'Émile'], null], 'Nana')
    const ada = await knex('authors').where('id', byName['Ada Lovelace']).first('name', 'email', knex.raw("to_char(born, 'YYYY-MM-DD') AS born"), 'created_at')
    eq([ada.name, ada.email, ada.born, ada.created_at instanceof Date], ['Ada Lovelace', 'ada@example.com', '1815-12-10', true], 'first')
  }],
  ['filters and ordering', async () => {
    eq(titles(await knex('books').where({ status: 'published' }).andWhere('price', '>', 8).orderBy('price', 'desc')),
      ['Notes on the Engine', 'Germinal', 'Thérèse Raquin'], 'published, price > 8')
    eq(titles(await knex('books').whereILike('title', 'the%').orWhere('pages', '<', 100).orderBy('title')),
      ['Notes on the Engine', 'The Last Man'], 'ILIKE or pages < 100')
    eq(titles(await knex('books').whereBetween('pages', [270, 480]).whereNot('status', 'published').orderBy([{ column: 'pages', order: 'asc' }])),
      ['Nana', 'The Last Man'], 'BETWEEN and NOT')
    eq(titles(await knex('books').whereIn('author_id', knex('authors').select('id').whereNull('email')).orderBy('title', 'desc')),
      ['The Last Man', 'Mathilda', 'Frankenstein'], 'IN (subquery)')
    eq(titles(await knex('books').whereRaw('tags @> ?', [['Mary']]).andWhereRaw("(details->>'words')::int > ?", [50000]).orderBy('title', 'desc')),
      ['The Last Man', 'Frankenstein'], 'array @> and jsonb path')
    eq(await knex('books').where('status', 'draft').count('* as n').first(), { n: '3' }, 'count')
    eq(await knex('books').sum('pages as total').first(), { total: '2257' }, 'sum')
    eq(await knex('books').pluck('title').where('pages', '>', 500), ['Germinal'], 'pluck')
    const perAuthor = await knex('books as b').join('authors as a', 'a.id', 'b.author_id')
      .select('a.name').count('b.id as n').avg('b.pages as avg_pages')
      .groupBy('a.id', 'a.name').having(knex.raw('count(b.id) > ?', [1])).orderBy('a.id')
    eq(perAuthor.map((r) => [r.name, r.n, Number(r.avg_pages).toFixed(2)]), [['Émile Zola', '3', '442.67'], ['Mary Shelley', '3', '289.67']], 'GROUP BY ... HAVING')
  }],
  ['joins', async () => {
    const rows = await knex('authors as a').leftJoin('books as b', function () {
      this.on('b.author_id', '=', 'a.id').andOn('b.status', '=', knex.raw('?', ['published']))
    }).select('a.name', 'b.title').orderBy(['a.id', 'b.title'])
    eq(rows.map((r) => [r.name, r.title]),
      [['Ada Lovelace', 'Notes on the Engine'], ['Émile Zola', 'Germinal'], ['Émile Zola', 'Thérèse Raquin'], ['Mary Shelley', 'Frankenstein']], 'LEFT JOIN with AND')
    eq(await knex('author_stats').orderBy('id').select('name', 'books', 'pages'),
      [{ name: 'Ada Lovelace', books: '1', pages: '60' }, { name: 'Émile Zola', books: '3', pages: '1328' }, { name: 'Mary Shelley', books: '3', pages: '869' }], 'the view')
    const lonely = await knex('authors as a').whereNotExists(knex('books as b').whereRaw('b.author_id = a.id').andWhere('b.status', 'draft')).pluck('name')
    eq(lonely, ['Ada Lovelace'], 'NOT EXISTS')
    const union = await knex('books').select('title as t').where('pages', '<', 100).union((q) => q.select('name').from('authors').where('name', 'like', 'M%')).orderBy('t')
    eq(union.map((r) => r.t), ['Mary Shelley', 'Notes on the Engine'], 'UNION')
  }],
  ['pagination', async () => {
    const pages = []
    for (let offset = 0; offset < books.length; offset += 3) {
      pages.push(titles(await knex('books').orderBy([{ column: 'pages', order: 'desc' }, 'id']).limit(3).offset(offset)))
    }
    eq(pages, [['Germinal', 'The Last Man', 'Nana'], ['Frankenstein', 'Thérèse Raquin', 'Mathilda'], ['Notes on the Engine']], 'pages of 3')
    // Keyset pagination: the page after a (pages, id) row.
    const [germinal] = await knex('books').where('title', 'Germinal').select('pages', 'id')
    eq(titles(await knex('books').whereRaw('(pages, id) < (?, ?)', [germinal.pages, germinal.id]).orderBy([{ column: 'pages', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(2)),
      ['The Last Man', 'Nana'], 'keyset')
  }],
  ['update, upsert and delete', async () => {
    eq(await knex('books').where('author_id', byName['Ada Lovelace']).update({ price: knex.raw('price * 2') }, ['title', 'price']),
      [{ title: 'Notes on the Engine', price: '25.00' }], 'update RETURNING')
    eq(await knex('books').where('title', 'Notes on the Engine').increment('pages', 10), 1, 'increment')
    eq(await knex('books').where('title', 'Notes on the Engine').decrement({ pages: 2 }), 1, 'decrement')
    eq((await knex('books').where('title', 'Notes on the Engine').first('pages')).pages, '68', 'pages')
    const up = await knex('authors').insert([{ name: 'Ada Lovelace', email: 'countess@example.com' }, { name: 'Jules Verne', born: '1828-02-08' }])
      .onConflict('name').merge(['email']).returning(['id', 'name', 'email'])
    eq(up.map((r) => [r.id === byName[r.name], r.name, r.email]), [[true, 'Ada Lovelace', 'countess@example.com'], [false, 'Jules Verne', null]], 'ON CONFLICT ... DO UPDATE')
    eq(await knex('authors').insert({ name: 'Jules Verne' }).onConflict('name').ignore().returning('id'), [], 'ON CONFLICT DO NOTHING')
    await knex('books').where('title', 'Germinal').update({ isbn: '978-0-19-953868-1', details: knex.raw(`details || '{"edition": 2}'::jsonb`) })
    eq(await knex('books').where('isbn', 'like', '978-%').first('title', 'details'), { title: 'Germinal', details: { words: 177600, edition: 2 } }, 'jsonb ||')
    eq(await knex('books').where('title', 'Mathilda').del(), 1, 'delete')
    eq(await knex('authors').where('name', 'Jules Verne').del(['name']), [{ name: 'Jules Verne' }], 'delete RETURNING')
  }],
  ['transactions', async () => {
    await rejectsAs(knex.transaction(async (trx) => {
      await trx('books').insert({ title: 'Lost', author_id: byName['Ada Lovelace'] })
      eq((await trx('books').where('title', 'Lost').count('* as n'))[0].n, '1', 'visible inside')
      throw new RangeError('roll it back')
    }), RangeError, 'a transaction that throws')
    eq((await knex('books').where('title', 'Lost').count('* as n'))[0].n, '0', 'rolled back')
    // A nested transaction is a savepoint: its rollback keeps the outer work.
    await knex.transaction(async (trx) => {
      await trx('books').insert({ title: "L'Assommoir", status: 'published', price: '6.60', pages: 576, author_id: byName['Émile Zola'] })
      await rejectsAs(trx.transaction(async (inner) => {
        await inner('books').update({ pages: 1 })
        throw new RangeError('to the savepoint')
      }), RangeError, 'the nested transaction')
      await rejectsAs(trx.transaction(async (inner) => {
        await inner('authors').insert({ name: 'Émile Zola' })
      }), DatabaseError, 'a unique violation in a savepoint')
      eq((await trx('books').sum('pages as s'))[0].s, '2731', 'after the savepoints')
    })
    eq((await knex('books').where('author_id', byName['Émile Zola']).count('* as n'))[0].n, '4', 'committed')
    const trx = await knex.transaction({ isolationLevel: 'repeatable read' })
    const before = (await trx('books').count('* as n'))[0].n
    await knex('books').insert({ title: 'Elsewhere', author_id: byName['Ada Lovelace'] })
    eq((await trx('books').count('* as n'))[0].n, before, 'one snapshot for the transaction')
    await trx.rollback()
    eq(await knex('books').where('title', 'Elsewhere').del(), 1, 'the other insert committed')
  }],
  ['unique violation', async () => {
    const err = await rejectsAs(knex('authors').insert({ name: 'Ada Lovelace' }), DatabaseError, 'duplicate name')
    eq([err.code, err.constraint, err.table, err.detail], ['23505', 'authors_name_unique', 'authors', 'Key (name)=(Ada Lovelace) already exists.'], 'error fields')
    const fk = await rejectsAs(knex('books').insert({ title: 'Orphan', author_id: 999999 }), DatabaseError, 'unknown author')
    eq([fk.code, fk.constraint], ['23503', 'books_author_id_foreign'], 'foreign key error')
    eq((await knex('authors').count('* as n'))[0].n, '3', 'the pool still works')
  }],
  ['rollback all', async () => {
    await knex('authors').where('name', 'Mary Shelley').del()
    eq((await knex('books').count('* as n'))[0].n, '5', 'books deleted with their author')
    eq((await knex.migrate.rollback(migrateConfig, true))[1], Object.keys(migrations).reverse(), 'rollback all')
    eq((await knex.raw("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex%'")).rows, [{ n: 0 }], 'tables left')
  }],
  ['close', () => knex.destroy()],
]).then(() => { if (process.exitCode) knex.destroy().catch(() => {}) })
