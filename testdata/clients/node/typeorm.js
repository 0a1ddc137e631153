// TypeORM 0.3 against the server: synchronize builds the schema from entity
// schemas by reading the catalogs back, a second synchronize finds nothing
// to change, migrations run and revert through the query runner's own DDL,
// and the repositories and QueryBuilder run CRUD, relations, filters,
// pagination with skip/take over joins, transactions and a unique
// violation. See internal/clienttest/orm_node_test.go.
'use strict'
const { DataSource, EntitySchema, QueryFailedError, Table, TableColumn, TableIndex, TableForeignKey, In, Between, ILike, MoreThan, Not, IsNull } = require('typeorm')
const { connection, run, eq } = require('./matrix')
const { authors, books, rejectsAs } = require('./orm')

const Author = new EntitySchema({
  name: 'Author',
  tableName: 'authors',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    name: { type: 'varchar', length: 100, unique: true },
    email: { type: 'varchar', nullable: true },
    born: { type: 'date' },
  },
  relations: {
    books: { type: 'one-to-many', target: 'Book', inverseSide: 'author' },
  },
})

const Book = new EntitySchema({
  name: 'Book',
  tableName: 'books',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    title: { type: 'text' },
    status: { type: 'enum', enum: ['draft', 'published'], enumName: 'book_status', default: 'draft' },
    price: { type: 'numeric', precision: 8, scale: 2 },
    pages: { type: 'int' },
    meta: { type: 'jsonb', nullable: true },
    createdAt: { type: 'timestamptz', createDate: true, name: 'created_at' },
    version: { type: 'int', version: true },
  },
  relations: {
    author: { type: 'many-to-one', target: 'Author', inverseSide: 'books', joinColumn: { name: 'author_id' }, nullable: false, onDelete: 'CASCADE' },
    tags: { type: 'many-to-many', target: 'Tag', joinTable: { name: 'book_tags', joinColumn: { name: 'book_id' }, inverseJoinColumn: { name: 'tag_id' } } },
  },
  indices: [{ name: 'books_status_pages', columns: ['status', 'pages'] }],
})

const Tag = new EntitySchema({
  name: 'Tag',
  tableName: 'tags',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    label: { type: 'varchar', length: 40, unique: true },
  },
})

// The migrations add a table of reviews to the synchronized schema with the
// query runner's DDL, which reads each table back before it changes it.
class CreateReviews1700000000001 {
  async up(qr) {
    await qr.createTable(new Table({
      name: 'reviews',
      columns: [
        { name: 'id', type: 'int', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'book_id', type: 'int' },
        { name: 'stars', type: 'smallint' },
        { name: 'body', type: 'text', isNullable: true },
      ],
      checks: [{ name: 'reviews_stars_range', expression: '"stars" BETWEEN 1 AND 5' }],
    }))
    await qr.createForeignKey('reviews', new TableForeignKey({ name: 'reviews_book_fk', columnNames: ['book_id'], referencedTableName: 'books', referencedColumnNames: ['id'], onDelete: 'CASCADE' }))
  }

  async down(qr) {
    await qr.dropTable('reviews')
  }
}

class ReviewsReviewer1700000000002 {
  async up(qr) {
    await qr.addColumn('reviews', new TableColumn({ name: 'reviewer', type: 'varchar', length: 60, default: "'anonymous'" }))
    await qr.createIndex('reviews', new TableIndex({ name: 'reviews_book_reviewer', columnNames: ['book_id', 'reviewer'], isUnique: true }))
    await qr.query("INSERT INTO reviews (book_id, stars, reviewer) SELECT id, 5, 'seed' FROM books WHERE title = 'Germinal'")
  }

  async down(qr) {
    await qr.dropIndex('reviews', 'reviews_book_reviewer')
    await qr.dropColumn('reviews', 'reviewer')
  }
}

const dataSource = (options) => new DataSource({
  type: 'postgres',
  host: connection.host,
  port: connection.port,
  username: connection.user,
  database: connection.database,
  entities: [Author, Book, Tag],
  migrations: [CreateReviews1700000000001, ReviewsReviewer1700000000002],
  logging: process.env.ORM_LOG ? 'all' : false,
  poolSize: 2,
  ...options,
})

let ds = dataSource({ synchronize: true })
const titles = (rows) => rows.map((b) => b.title)
const byName = {}
const authorsRepo = () => ds.getRepository(Author)
const booksRepo = () => ds.getRepository(Book)

run([
  ['synchronize', async () => {
    await ds.initialize()
    const qr = ds.createQueryRunner()
    try {
      eq((await qr.getTables(['authors', 'books', 'tags', 'book_tags'])).map((t) => t.name).sort(), ['authors', 'book_tags', 'books', 'tags'], 'tables')
      const t = await qr.getTable('books')
      eq(t.columns.map((c) => c.name).sort(), ['author_id', 'created_at', 'id', 'meta', 'pages', 'price', 'status', 'title', 'version'], 'books columns')
      const col = (name) => t.findColumnByName(name)
      eq([col('status').type, col('status').enum, col('status').enumName, col('status').default], ['enum', ['draft', 'published'], 'book_status', "'draft'"], 'status')
      eq([col('price').type, col('price').precision, col('price').scale, col('meta').isNullable, col('title').isNullable], ['numeric', 8, 2, true, false], 'price, meta, title')
      eq([col('id').isPrimary, col('id').isGenerated, col('id').generationStrategy], [true, true, 'increment'], 'id')
      eq(t.foreignKeys.map((f) => [f.columnNames, f.referencedTableName, f.referencedColumnNames, f.onDelete]), [[['author_id'], 'authors', ['id'], 'CASCADE']], 'foreign keys')
      eq(t.indices.map((i) => [i.name, i.columnNames, i.isUnique]), [['books_status_pages', ['status', 'pages'], false]], 'indices')
      const tags = await qr.getTable('tags')
      eq([tags.findColumnByName('id').type, tags.findColumnByName('id').generationStrategy, tags.uniques.map((u) => u.columnNames)], ['uuid', 'uuid', [['label']]], 'tags')
    } finally {
      await qr.release()
    }
  }],
  ['no pending changes', async () => {
    // The schema builder diffs the entities against the catalogs, which
    // must read back exactly what synchronize wrote.
    const pending = await ds.driver.createSchemaBuilder().log()
    eq(pending.upQueries.map((q) => q.query), [], 'queries a second synchronize would run')
    await ds.destroy()
    ds = dataSource({ synchronize: true })
    await ds.initialize()
  }],
  ['create', async () => {
    const saved = await authorsRepo().save(authors.map((a) => authorsRepo().create(a)))
    for (const a of saved) {
      byName[a.name] = a
    }
    eq(saved.map((a) => typeof a.id), ['number', 'number', 'number'], 'generated ids')
    const tags = await ds.getRepository(Tag).save([{ label: 'classic' }, { label: 'gothic' }])
    eq(tags.map((t) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(t.id)), [true, true], 'uuid ids')
    for (const b of books) {
      const bookTags = b.title === 'Germinal' ? [tags[0]] : b.title === 'Frankenstein' ? tags : []
      await booksRepo().save(booksRepo().create({ ...b, author: byName[b.author], meta: { words: b.pages * 300 }, tags: bookTags }))
    }
    const nana = await booksRepo().findOne({ where: { title: 'Nana' }, relations: { author: true } })
    eq([nana.status, nana.price, nana.pages, nana.meta, nana.author.name, nana.version], ['draft', '7.25', 464, { words: 139200 }, 'Émile Zola', 1], 'Nana')
    eq(nana.createdAt instanceof Date && nana.createdAt.getTime() > 0, true, 'created_at')
    const ada = await authorsRepo().findOneBy({ id: byName['Ada Lovelace'].id })
    eq([ada.name, ada.email, ada.born], ['Ada Lovelace', 'ada@example.com', '1815-12-10'], 'findOneBy')
  }],
  ['filters and ordering', async () => {
    eq(titles(await booksRepo().find({ where: { status: 'published', price: MoreThan(8) }, order: { price: 'DESC' } })),
      ['Notes on the Engine', 'Germinal', 'Thérèse Raquin'], 'published, price > 8')
    eq(titles(await booksRepo().find({ where: [{ title: ILike('the%') }, { pages: Between(50, 100) }], order: { title: 'ASC' } })),
      ['Notes on the Engine', 'The Last Man'], 'ILIKE or BETWEEN')
    eq(titles(await booksRepo().find({ where: { author: { email: IsNull() }, status: Not('published') }, order: { pages: 'ASC' } })),
      ['Mathilda', 'The Last Man'], 'through the relation: IS NULL and <>')
    eq(titles(await booksRepo().find({ where: { title: In(['Nana', 'Germinal', 'Missing']) }, order: { title: 'DESC' } })), ['Nana', 'Germinal'], 'IN')
    eq(await booksRepo().countBy({ status: 'draft' }), 3, 'count')
    eq(await booksRepo().sum('pages'), 2257, 'sum')
    const perAuthor = await booksRepo().createQueryBuilder('b')
      .select('a.name', 'name').addSelect('count(*)', 'n').addSelect('sum(b.price)', 'total')
      .innerJoin('b.author', 'a').groupBy('a.id').having('count(*) > :n', { n: 1 }).orderBy('a.id').getRawMany()
    eq(perAuthor, [{ name: 'Émile Zola', n: '3', total: '25.64' }, { name: 'Mary Shelley', n: '3', total: '24.75' }], 'GROUP BY ... HAVING')
  }],
  ['relations', async () => {
    const rows = await authorsRepo().find({ relations: { books: true }, where: { books: { status: 'published' } }, order: { id: 'ASC', books: { title: 'ASC' } } })
    eq(rows.map((a) => [a.name, titles(a.books)]),
      [['Ada Lovelace', ['Notes on the Engine']], ['Émile Zola', ['Germinal', 'Thérèse Raquin']], ['Mary Shelley', ['Frankenstein']]], 'authors with published books')
    const tagged = await booksRepo().createQueryBuilder('b').innerJoinAndSelect('b.tags', 't').leftJoinAndSelect('b.author', 'a')
      .where('t.label = :label', { label: 'classic' }).orderBy('b.title').getMany()
    eq(tagged.map((b) => [b.title, b.author.name, b.tags.map((t) => t.label).sort()]),
      [['Frankenstein', 'Mary Shelley', ['classic']], ['Germinal', 'Émile Zola', ['classic']]], 'many-to-many join')
    const frank = await booksRepo().findOne({ where: { title: 'Frankenstein' }, relations: { tags: true } })
    eq(frank.tags.map((t) => t.label).sort(), ['classic', 'gothic'], 'tags of Frankenstein')
  }],
  ['pagination', async () => {
    const pages = []
    for (let skip = 0; skip < books.length; skip += 3) {
      pages.push(titles(await booksRepo().find({ order: { pages: 'DESC', id: 'ASC' }, skip, take: 3 })))
    }
    eq(pages, [['Germinal', 'The Last Man', 'Nana'], ['Frankenstein', 'Thérèse Raquin', 'Mathilda'], ['Notes on the Engine']], 'find pages of 3')
    // skip and take over a join page the authors, not the joined rows:
    // TypeORM selects the page's distinct ids first, then their rows. (An
    // ORDER BY on a joined column would go into that first query too and
    // page the joined rows, so the books are sorted here.)
    const qb = () => authorsRepo().createQueryBuilder('a').leftJoinAndSelect('a.books', 'b').orderBy('a.id')
    const byPages = (a) => [a.name, titles(a.books.sort((x, y) => x.pages - y.pages))]
    const [page, total] = await qb().skip(1).take(2).getManyAndCount()
    eq([total, page.map(byPages)],
      [3, [['Émile Zola', ['Thérèse Raquin', 'Nana', 'Germinal']], ['Mary Shelley', ['Mathilda', 'Frankenstein', 'The Last Man']]]], 'getManyAndCount with skip and take')
    eq((await qb().skip(2).take(5).getMany()).map((a) => a.name), ['Mary Shelley'], 'last page')
    eq(titles(await booksRepo().createQueryBuilder('b').orderBy('b.price', 'ASC').offset(2).limit(2).getMany()), ['Nana', 'Thérèse Raquin'], 'offset and limit')
  }],
  ['update and delete', async () => {
    const res = await booksRepo().createQueryBuilder().update().set({ price: () => 'price * 2' }).where('title = :t', { t: 'Notes on the Engine' }).returning(['price']).execute()
    eq([res.affected, res.raw], [1, [{ price: '25.00' }]], 'update RETURNING')
    const notes = await booksRepo().findOneBy({ title: 'Notes on the Engine' })
    notes.pages = 65
    notes.meta = { ...notes.meta, edition: 2 }
    await booksRepo().save(notes)
    const again = await booksRepo().findOneBy({ id: notes.id })
    eq([again.pages, again.meta, again.price, again.version], [65, { words: 18000, edition: 2 }, '25.00', 3], 'save: pages, meta, version (both updates bump it)')
    await booksRepo().increment({ id: notes.id }, 'pages', 5)
    eq((await booksRepo().findOneBy({ id: notes.id })).pages, 70, 'increment')
    eq((await booksRepo().update({ title: 'Mathilda' }, { status: 'published' })).affected, 1, 'update')
    eq((await booksRepo().delete({ title: 'Mathilda' })).affected, 1, 'delete')
    eq(await booksRepo().count(), 6, 'count after delete')
  }],
  ['transactions', async () => {
    await rejectsAs(ds.transaction(async (manager) => {
      await manager.save(Book, { title: 'Lost', price: '1.00', pages: 1, author: byName['Ada Lovelace'] })
      eq(await manager.countBy(Book, { title: 'Lost' }), 1, 'visible inside')
      throw new RangeError('roll it back')
    }), RangeError, 'a transaction that throws')
    eq(await booksRepo().countBy({ title: 'Lost' }), 0, 'rolled back')
    const qr = ds.createQueryRunner()
    await qr.connect()
    await qr.startTransaction()
    await qr.manager.createQueryBuilder().update(Book).set({ pages: 1 }).execute()
    eq(await qr.manager.sum(Book, 'pages'), 6, 'inside the transaction')
    await qr.rollbackTransaction()
    await qr.release()
    eq(await booksRepo().sum('pages'), 2157, 'after ROLLBACK')
    await ds.transaction('REPEATABLE READ', async (manager) => {
      const zola = await manager.findOne(Author, { where: { name: 'Émile Zola' }, lock: { mode: 'pessimistic_write' } })
      await manager.save(Book, { title: "L'Assommoir", status: 'published', price: '6.60', pages: 576, author: zola })
    })
    eq(await booksRepo().countBy({ author: { id: byName['Émile Zola'].id } }), 4, 'committed')
  }],
  ['unique violation', async () => {
    const err = await rejectsAs(authorsRepo().insert({ name: 'Ada Lovelace', born: '1900-01-01' }), QueryFailedError, 'duplicate name')
    const [unique] = await ds.query("SELECT conname FROM pg_constraint WHERE conrelid = 'authors'::regclass AND contype = 'u'")
    eq([err.driverError.code, err.driverError.constraint, err.driverError.table], ['23505', unique.conname, 'authors'], 'SQLSTATE, constraint and table')
    const fk = await rejectsAs(booksRepo().insert({ title: 'Orphan', price: '1.00', pages: 1, author: { id: 999999 } }), QueryFailedError, 'unknown author')
    eq(fk.driverError.code, '23503', 'foreign key SQLSTATE')
    eq(await authorsRepo().count(), 3, 'the connection still works')
  }],
  ['migrations run and revert', async () => {
    await ds.destroy()
    ds = dataSource({ synchronize: false })
    await ds.initialize()
    eq(await ds.showMigrations(), true, 'pending migrations')
    const ran = await ds.runMigrations({ transaction: 'each' })
    eq(ran.map((m) => m.name), ['CreateReviews1700000000001', 'ReviewsReviewer1700000000002'], 'migrations run')
    eq(await ds.showMigrations(), false, 'nothing pending')
    eq((await ds.query('SELECT "timestamp", name FROM migrations ORDER BY id')).map((r) => [r.timestamp, r.name]),
      [['1700000000001', 'CreateReviews1700000000001'], ['1700000000002', 'ReviewsReviewer1700000000002']], 'migrations table')
    eq(await ds.query('SELECT stars, reviewer FROM reviews'), [{ stars: 5, reviewer: 'seed' }], 'seeded review')
    const qr = ds.createQueryRunner()
    try {
      const t = await qr.getTable('reviews')
      eq(t.columns.map((c) => [c.name, c.type]), [['id', 'integer'], ['book_id', 'integer'], ['stars', 'smallint'], ['body', 'text'], ['reviewer', 'character varying']], 'reviews columns')
      eq([t.findColumnByName('reviewer').default, t.findColumnByName('reviewer').length], ["'anonymous'", '60'], 'reviewer')
      eq(t.indices.map((i) => [i.name, i.columnNames, i.isUnique]), [['reviews_book_reviewer', ['book_id', 'reviewer'], true]], 'indices')
      eq(t.checks.map((c) => c.name), ['reviews_stars_range'], 'checks')
      eq(t.foreignKeys.map((f) => [f.name, f.referencedTableName]), [['reviews_book_fk', 'books']], 'foreign keys')
    } finally {
      await qr.release()
    }
    await rejectsAs(ds.query('INSERT INTO reviews (book_id, stars) SELECT id, 6 FROM books LIMIT 1'), QueryFailedError, 'six stars')
    await ds.undoLastMigration({ transaction: 'each' })
    eq((await ds.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'reviews' ORDER BY ordinal_position")).map((r) => r.column_name),
      ['id', 'book_id', 'stars', 'body'], 'columns after one revert')
    eq(await ds.showMigrations(), true, 'one pending again')
    await ds.undoLastMigration()
    eq(await ds.query("SELECT to_regclass('reviews') IS NULL AS gone"), [{ gone: true }], 'reviews dropped')
    eq(await ds.query('SELECT count(*)::int AS n FROM migrations'), [{ n: 0 }], 'migrations table emptied')
    // The synchronized entities still match the catalogs after it all.
    eq((await ds.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query), [], 'pending after the migrations')
  }],
  ['cascade and drop', async () => {
    await authorsRepo().delete({ name: 'Mary Shelley' })
    eq(await booksRepo().count(), 5, 'books deleted with their author')
    await ds.dropDatabase()
    eq(await ds.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"), [{ n: 0 }], 'tables after dropDatabase')
  }],
  ['close', () => ds.destroy()],
]).then(() => { if (process.exitCode && ds.isInitialized) ds.destroy().catch(() => {}) })
