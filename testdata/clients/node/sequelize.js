// Sequelize 6 against the server: sync creates the schema (its enum types in
// DO blocks that swallow duplicate_object), sync({ alter: true }) migrates it
// by reading it back through information_schema and pg_catalog, and the
// models run CRUD, filters, includes, ordering, pagination, transactions and
// a unique violation. See internal/clienttest/orm_node_test.go.
'use strict'
const { Sequelize, DataTypes, Op, QueryTypes, UniqueConstraintError, ForeignKeyConstraintError } = require('sequelize')
const { connection, run, eq } = require('./matrix')
const { authors, books, rejectsAs } = require('./orm')

const sequelize = new Sequelize(connection.database, connection.user, null, {
  dialect: 'postgres',
  host: connection.host,
  port: connection.port,
  logging: process.env.ORM_LOG ? console.log : false,
  pool: { max: 2 },
})
const qi = sequelize.getQueryInterface()

// defineModels defines the models; version 2 is what sync({ alter: true })
// migrates version 1's tables to: a third enum value, a new column, a wider
// integer, a dropped column and a new index.
const defineModels = (version) => {
  const Author = sequelize.define('Author', {
    name: { type: DataTypes.STRING(100), allowNull: false, unique: true },
    email: DataTypes.STRING,
    born: DataTypes.DATEONLY,
  }, { tableName: 'authors', underscored: true })
  const Book = sequelize.define('Book', {
    title: { type: DataTypes.STRING, allowNull: false },
    status: {
      type: DataTypes.ENUM(...(version === 1 ? ['draft', 'published'] : ['draft', 'published', 'retired'])),
      allowNull: false,
      defaultValue: 'draft',
    },
    price: DataTypes.DECIMAL(8, 2),
    pages: version === 1 ? DataTypes.INTEGER : DataTypes.BIGINT,
    meta: DataTypes.JSONB,
    ...(version === 1 ? { tags: DataTypes.ARRAY(DataTypes.TEXT) } : { isbn: DataTypes.STRING(20) }),
  }, {
    tableName: 'books',
    underscored: true,
    indexes: version === 1 ? [] : [{ name: 'books_status_price', fields: ['status', 'price'] }],
  })
  const Shelf = sequelize.define('Shelf', {
    label: { type: DataTypes.TEXT, allowNull: false, unique: true },
  }, { tableName: 'shelves', underscored: true, timestamps: false })
  Author.hasMany(Book, { foreignKey: { name: 'authorId', allowNull: false }, onDelete: 'CASCADE' })
  Book.belongsTo(Author, { foreignKey: { name: 'authorId', allowNull: false } })
  Book.belongsToMany(Shelf, { through: 'book_shelves', timestamps: false })
  Shelf.belongsToMany(Book, { through: 'book_shelves', timestamps: false })
  return { Author, Book, Shelf }
}

let { Author, Book, Shelf } = defineModels(1)
const titles = (rows) => rows.map((b) => b.title)
const byName = {}

run([
  ['connect', () => sequelize.authenticate()],
  ['sync', async () => {
    await sequelize.sync()
    eq((await qi.showAllTables()).sort(), ['authors', 'book_shelves', 'books', 'shelves'], 'showAllTables')
    const enums = await sequelize.query(qi.queryGenerator.pgListEnums('books'), { type: QueryTypes.SELECT })
    // pg leaves the labels, a name[], as PostgreSQL's array text.
    eq(enums.map((e) => [e.enum_name, e.enum_value]), [['enum_books_status', '{draft,published}']], 'enum types')
    // A second sync finds everything there: its enum DO block swallows the
    // duplicate_object error.
    await sequelize.sync()
    await sequelize.query(qi.queryGenerator.pgEnum('books', 'status', Book.rawAttributes.status.type))
  }],
  ['describeTable', async () => {
    const d = await qi.describeTable('books')
    eq(Object.keys(d).sort(), ['author_id', 'created_at', 'id', 'meta', 'pages', 'price', 'status', 'tags', 'title', 'updated_at'], 'columns')
    // Sequelize strips the quotes from a default and keeps a regclass cast.
    eq([d.id.type, d.id.primaryKey, d.id.allowNull, d.id.defaultValue], ['INTEGER', true, false, 'nextval(books_id_seq::regclass)'], 'id')
    eq([d.title.type, d.title.allowNull], ['CHARACTER VARYING(255)', false], 'title')
    eq([d.status.type, d.status.special, d.status.defaultValue, d.status.allowNull], ['USER-DEFINED', ['draft', 'published'], 'draft', false], 'status')
    eq([d.price.type, d.pages.type, d.meta.type, d.tags.type], ['NUMERIC', 'INTEGER', 'JSONB', 'ARRAY'], 'types')
    eq([d.created_at.type, d.author_id.allowNull], ['TIMESTAMP WITH TIME ZONE', false], 'created_at, author_id')
    const fks = await qi.getForeignKeyReferencesForTable('books')
    eq(fks.map((f) => [f.columnName, f.referencedTableName, f.referencedColumnName]), [['author_id', 'authors', 'id']], 'foreign keys')
    const idx = await qi.showIndex('authors')
    eq(idx.map((i) => [i.name, i.primary, i.unique, i.fields.map((f) => f.attribute)]).sort(),
      [['authors_name_key', false, true, ['name']], ['authors_pkey', true, true, ['id']]], 'authors indexes')
  }],
  ['create', async () => {
    for (const a of await Author.bulkCreate(authors, { returning: true })) {
      byName[a.name] = a
    }
    eq(Object.values(byName).map((a) => typeof a.id), ['number', 'number', 'number'], 'ids from RETURNING')
    for (const b of books) {
      await Book.create({ ...b, authorId: byName[b.author].id, meta: { words: b.pages * 300 }, tags: [b.status, b.author.split(' ')[0]] })
    }
    const nana = await Book.findOne({ where: { title: 'Nana' } })
    eq([nana.status, nana.price, nana.pages, nana.meta, nana.tags], ['draft', '7.25', 464, { words: 139200 }, ['draft', 'Émile']], 'Nana')
    eq(nana.createdAt instanceof Date && nana.createdAt.getTime() > 0, true, 'created_at')
    const ada = await Author.findByPk(byName['Ada Lovelace'].id)
    eq([ada.name, ada.email, ada.born], ['Ada Lovelace', 'ada@example.com', '1815-12-10'], 'findByPk')
    const [shelf] = await Shelf.findOrCreate({ where: { label: 'classics' } })
    await shelf.addBooks(await Book.findAll({ where: { title: ['Germinal', 'Frankenstein'] } }))
    const [again, created] = await Shelf.findOrCreate({ where: { label: 'classics' } })
    eq([again.id, created], [shelf.id, false], 'findOrCreate again')
  }],
  ['filters and ordering', async () => {
    eq(titles(await Book.findAll({ where: { status: 'published', price: { [Op.gte]: 8 } }, order: [['price', 'DESC']] })),
      ['Notes on the Engine', 'Germinal', 'Thérèse Raquin'], 'published, price >= 8')
    eq(titles(await Book.findAll({ where: { [Op.or]: [{ title: { [Op.iLike]: 'the%' } }, { pages: { [Op.lt]: 100 } }] }, order: ['title'] })),
      ['Notes on the Engine', 'The Last Man'], 'ILIKE or pages < 100')
    eq(titles(await Book.findAll({ where: { pages: { [Op.between]: [270, 480] }, status: { [Op.ne]: 'published' } }, order: [['pages', 'ASC']] })),
      ['Nana', 'The Last Man'], 'BETWEEN and <>')
    eq(titles(await Book.findAll({ where: { tags: { [Op.contains]: ['Mary'] }, 'meta.words': { [Op.gt]: 50000 } }, order: [['title', 'DESC']] })),
      ['The Last Man', 'Frankenstein'], 'array @> and jsonb path')
    eq(await Book.count({ where: { status: 'draft' } }), 3, 'count')
    eq(await Book.sum('pages'), 2257, 'sum')
    eq(await Book.max('price'), 15, 'max, parsed by Sequelize')
    const perAuthor = await Book.findAll({
      attributes: ['authorId', [sequelize.fn('count', sequelize.col('id')), 'n'], [sequelize.fn('avg', sequelize.col('pages')), 'avgPages']],
      group: ['authorId'], having: sequelize.where(sequelize.fn('count', sequelize.col('id')), Op.gt, 1), order: [['authorId', 'ASC']], raw: true,
    })
    eq(perAuthor.map((r) => [r.authorId, r.n, Number(r.avgPages).toFixed(2)]),
      [[byName['Émile Zola'].id, '3', '442.67'], [byName['Mary Shelley'].id, '3', '289.67']], 'GROUP BY ... HAVING')
  }],
  ['include', async () => {
    const rows = await Author.findAll({
      include: [{ model: Book, where: { status: 'published' }, required: true }],
      order: [['id', 'ASC'], [Book, 'title', 'ASC']],
    })
    eq(rows.map((a) => [a.name, titles(a.Books)]),
      [['Ada Lovelace', ['Notes on the Engine']], ['Émile Zola', ['Germinal', 'Thérèse Raquin']], ['Mary Shelley', ['Frankenstein']]], 'authors with published books')
    const withAuthor = await Book.findAll({ include: [{ model: Author, where: { email: null } }], order: [['pages', 'DESC']] })
    eq(withAuthor.map((b) => [b.title, b.Author.name]),
      [['The Last Man', 'Mary Shelley'], ['Frankenstein', 'Mary Shelley'], ['Mathilda', 'Mary Shelley']], 'books of authors without email')
    const shelf = await Shelf.findOne({ where: { label: 'classics' }, include: [{ model: Book, include: [Author] }], order: [[Book, 'title', 'ASC']] })
    eq(shelf.Books.map((b) => [b.title, b.Author.name]), [['Frankenstein', 'Mary Shelley'], ['Germinal', 'Émile Zola']], 'belongsToMany')
    // A limit with a hasMany include makes Sequelize page the authors in a
    // subquery and join the books to it.
    const paged = await Author.findAll({ include: [Book], limit: 2, offset: 1, order: [['id', 'ASC'], [Book, 'pages', 'ASC']] })
    eq(paged.map((a) => [a.name, titles(a.Books)]),
      [['Émile Zola', ['Thérèse Raquin', 'Nana', 'Germinal']], ['Mary Shelley', ['Mathilda', 'Frankenstein', 'The Last Man']]], 'limit with include')
  }],
  ['pagination', async () => {
    const pages = []
    for (let offset = 0; offset < books.length; offset += 3) {
      pages.push(titles(await Book.findAll({ order: [['pages', 'DESC'], ['id', 'ASC']], limit: 3, offset })))
    }
    eq(pages, [['Germinal', 'The Last Man', 'Nana'], ['Frankenstein', 'Thérèse Raquin', 'Mathilda'], ['Notes on the Engine']], 'pages of 3')
    const { count, rows } = await Book.findAndCountAll({ where: { status: 'draft' }, order: ['title'], limit: 2, offset: 1 })
    eq([count, titles(rows)], [3, ['Nana', 'The Last Man']], 'findAndCountAll')
  }],
  ['update and delete', async () => {
    const [n] = await Book.update({ price: sequelize.literal('price * 2') }, { where: { authorId: byName['Ada Lovelace'].id } })
    eq(n, 1, 'rows updated')
    const notes = await Book.findOne({ where: { title: 'Notes on the Engine' } })
    eq(notes.price, '25.00', 'doubled price')
    notes.pages = 65
    notes.meta = { ...notes.meta, edition: 2 }
    await notes.save()
    await notes.reload()
    eq([notes.pages, notes.meta], [65, { words: 18000, edition: 2 }], 'save and reload')
    await notes.increment('pages', { by: 5 })
    eq((await Book.findByPk(notes.id)).pages, 70, 'increment')
    const [, returned] = await Book.update({ status: 'published' }, { where: { title: 'Mathilda' }, returning: true })
    eq(returned.map((b) => [b.title, b.status]), [['Mathilda', 'published']], 'update RETURNING')
    eq(await Book.destroy({ where: { title: 'Mathilda' } }), 1, 'destroy')
    eq(await Book.count(), 6, 'count after destroy')
  }],
  ['transactions', async () => {
    await rejectsAs(sequelize.transaction(async (transaction) => {
      await Book.create({ title: 'Lost', authorId: byName['Ada Lovelace'].id }, { transaction })
      eq(await Book.count({ where: { title: 'Lost' }, transaction }), 1, 'visible inside')
      throw new RangeError('roll it back')
    }), RangeError, 'a managed transaction that throws')
    eq(await Book.count({ where: { title: 'Lost' } }), 0, 'rolled back')
    const t = await sequelize.transaction()
    await Book.update({ pages: 1 }, { where: {}, transaction: t })
    await t.rollback()
    eq(await Book.sum('pages'), 2157, 'unmanaged rollback')
    await sequelize.transaction(async (transaction) => {
      const zola = await Author.findByPk(byName['Émile Zola'].id, { transaction, lock: transaction.LOCK.UPDATE })
      await Book.create({ title: "L'Assommoir", status: 'published', price: '6.60', pages: 576, authorId: zola.id }, { transaction })
    })
    eq(await Book.count({ where: { authorId: byName['Émile Zola'].id } }), 4, 'committed')
  }],
  ['unique violation', async () => {
    const err = await rejectsAs(Author.create({ name: 'Ada Lovelace' }), UniqueConstraintError, 'duplicate name')
    eq([err.parent.code, err.fields], ['23505', { name: 'Ada Lovelace' }], 'SQLSTATE and fields')
    const fk = await rejectsAs(Book.create({ title: 'Orphan', authorId: 999999 }), ForeignKeyConstraintError, 'unknown author')
    eq(fk.parent.code, '23503', 'foreign key SQLSTATE')
    eq(await Author.count(), 3, 'the connection still works')
  }],
  ['sync alter', async () => {
    ;({ Author, Book, Shelf } = defineModels(2))
    await sequelize.sync({ alter: true })
    const d = await qi.describeTable('books')
    eq(Object.keys(d).sort(), ['author_id', 'created_at', 'id', 'isbn', 'meta', 'pages', 'price', 'status', 'title', 'updated_at'], 'columns')
    eq([d.pages.type, d.isbn.type, d.status.special], ['BIGINT', 'CHARACTER VARYING(20)', ['draft', 'published', 'retired']], 'altered columns')
    const fks = await qi.getForeignKeyReferencesForTable('books')
    eq(fks.map((f) => [f.columnName, f.referencedTableName]), [['author_id', 'authors']], 'one foreign key, replaced')
    const idx = await qi.showIndex('books')
    eq(idx.filter((i) => i.name === 'books_status_price').map((i) => i.fields.map((f) => f.attribute)), [['status', 'price']], 'new index')
    await Book.update({ status: 'retired', isbn: '978-0-19-283865-8' }, { where: { title: 'The Last Man' } })
    const last = await Book.findOne({ where: { status: 'retired' } })
    eq([last.title, last.isbn, last.pages, typeof last.pages], ['The Last Man', '978-0-19-283865-8', '479', 'string'], 'new enum value and column')
    eq(await Book.count(), 7, 'rows kept')
    // A second alter has nothing to change but runs the same statements.
    await sequelize.sync({ alter: true })
    eq(Object.keys(await qi.describeTable('books')).length, 10, 'columns after a second alter')
    eq((await qi.getForeignKeyReferencesForTable('books')).length, 1, 'foreign keys after a second alter')
  }],
  ['cascade and drop', async () => {
    await Author.destroy({ where: { name: 'Mary Shelley' } })
    eq(await Book.count(), 5, 'books deleted with their author')
    // Sequelize 6.37's dropTable sets a flag on its options: it needs some.
    await sequelize.drop({})
    eq(await qi.showAllTables(), [], 'tables after drop')
    eq(await sequelize.query("SELECT typname FROM pg_type WHERE typname LIKE 'enum%'", { type: QueryTypes.SELECT }), [], 'enum types after drop')
  }],
  ['close', () => sequelize.close()],
]).then(() => { if (process.exitCode) sequelize.close().catch(() => {}) })
