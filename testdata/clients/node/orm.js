// What the ORM and query-builder programs share (sequelize.js, typeorm.js,
// knex.js and pgpromise.js; see internal/clienttest/orm_node_test.go): the
// library the programs fill, and an assertion on an error's class. Each
// program keeps its own schema, in its tool's idiom, of authors and their
// books. With ORM_LOG=1 each program prints the SQL its tool sends.
'use strict'
const assert = require('node:assert/strict')

// authors and books are the rows every program writes through its tool. The
// books' prices are exact in numeric(8,2) and not in binary floating point.
exports.authors = [
  { name: 'Ada Lovelace', email: 'ada@example.com', born: '1815-12-10' },
  { name: 'Émile Zola', email: 'emile@example.com', born: '1840-04-02' },
  { name: 'Mary Shelley', email: null, born: '1797-08-30' },
]

exports.books = [
  { title: 'Notes on the Engine', author: 'Ada Lovelace', status: 'published', price: '12.50', pages: 60 },
  { title: 'Germinal', author: 'Émile Zola', status: 'published', price: '9.99', pages: 592 },
  { title: 'Nana', author: 'Émile Zola', status: 'draft', price: '7.25', pages: 464 },
  { title: 'Thérèse Raquin', author: 'Émile Zola', status: 'published', price: '8.40', pages: 272 },
  { title: 'Frankenstein', author: 'Mary Shelley', status: 'published', price: '5.00', pages: 280 },
  { title: 'The Last Man', author: 'Mary Shelley', status: 'draft', price: '15.00', pages: 479 },
  { title: 'Mathilda', author: 'Mary Shelley', status: 'draft', price: '4.75', pages: 110 },
]

// rejectsAs asserts that promise rejects with an instance of errorClass, the
// tool's own error, and returns the error for the caller's further checks.
exports.rejectsAs = async (promise, errorClass, what) => {
  let err
  try {
    await promise
  } catch (e) {
    err = e
  }
  if (err === undefined) {
    assert.fail(`${what}: succeeded, want ${errorClass.name}`)
  }
  assert.ok(err instanceof errorClass, `${what}: got ${err && err.constructor ? err.constructor.name : typeof err} (${err && err.message}), want ${errorClass.name}`)
  return err
}
