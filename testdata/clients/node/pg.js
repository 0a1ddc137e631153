// The client matrix for node-postgres (pg). See internal/clienttest/doc.go.
//
// pg sends parameters as text with their types left to the server, and
// Buffers in binary. It reads text results by default; binary results
// (binary: true) pass through a UTF-8 decode in pg-protocol, so only
// columns whose binary encoding is valid UTF-8 survive them, whatever the
// server. pg has no COPY of its own (pg-copy-streams adds it): it answers
// CopyInResponse with CopyFail, which the server must survive.
'use strict'
const { Client } = require('pg')
const { createMatrix, columns, canonicalText, connection, run, eq, rejectsWith } = require('./matrix')

const client = new Client({ ...connection, ssl: false })
const insert = `INSERT INTO matrix VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`
const raw = { getTypeParser: () => (v) => v } // every column as the server sent it
// The json step's table and values (see internal/clienttest/json_test.go):
// json keeps its text as written, jsonb is written in its normal form.
const createJdocs = 'CREATE TABLE jdocs (id int4 PRIMARY KEY, j jsonb, t json)'
const jsonDoc = '{"b": [1, 2],  "a": 1, "a": 2}'
const jsonbText = '{"a": 1, "b": [1, 2], "n": null, "s": "héllo \\"w\\" \\\\ é", "num": 1.5}'
const count = async (where) => Number((await client.query(`SELECT count(*) AS n FROM matrix WHERE ${where}`)).rows[0].n)

run([
  ['connect', async () => {
    await client.connect()
    await client.query("SET TimeZone = 'UTC'")
  }],
  ['create', () => client.query(createMatrix)],
  ['insert with parameters', async () => {
    const values = canonicalText.slice()
    values[10] = 'ab'
    values[11] = Buffer.from([0x00, 0xff, 0x10])
    const res = await client.query(insert, values)
    eq(res.command, 'INSERT', 'command')
    eq(res.rowCount, 1, 'rowCount')
    await client.query(insert, [2, ...Array(columns.length - 1).fill(null)])
    // JavaScript values: pg turns them into text itself.
    await client.query('INSERT INTO matrix (id, c_bool, c_int4, c_int8, c_float8, c_timestamptz, c_bytea) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [3, false, -7, 9007199254740993n, -1.5e300, new Date(Date.UTC(2024, 1, 29, 13, 45, 56, 123)), Buffer.alloc(0)])
  }],
  ['read back text, as sent', async () => {
    const res = await client.query({ text: 'SELECT * FROM matrix WHERE id = $1', values: [1], types: raw, rowMode: 'array' })
    eq(res.fields.map((f) => f.name), columns, 'column names')
    eq(res.fields.map((f) => f.dataTypeID), [23, 16, 21, 23, 20, 700, 701, 1700, 25, 1043, 1042, 17, 1082, 1114, 1184, 2950, 1186], 'type OIDs')
    eq(res.rows[0], canonicalText, 'row 1')
    const nulls = await client.query({ text: 'SELECT * FROM matrix WHERE id = $1', values: [2], types: raw, rowMode: 'array' })
    eq(nulls.rows[0], ['2', ...Array(columns.length - 1).fill(null)], 'row 2')
  }],
  ['read back text, parsed', async () => {
    const r = (await client.query('SELECT * FROM matrix WHERE id = $1', [1])).rows[0]
    eq(r.c_bool, true, 'bool')
    eq(r.c_int2, -32768, 'int2')
    eq(r.c_int4, 2147483647, 'int4')
    eq(r.c_int8, '-9223372036854775808', 'int8')
    eq(r.c_float4, 3.14159, 'float4')
    eq(r.c_float8, 0.1, 'float8')
    eq(r.c_numeric, '12345678901234567890.123456789', 'numeric')
    eq(r.c_text, 'héllo, "wörld" \\ \'q\'', 'text')
    eq(r.c_char, 'ab   ', 'char')
    eq(r.c_bytea, Buffer.from([0x00, 0xff, 0x10]), 'bytea')
    eq(r.c_date.toISOString(), '2024-02-29T00:00:00.000Z', 'date')
    eq(r.c_timestamp.toISOString(), '2024-02-29T13:45:56.123Z', 'timestamp')
    eq(r.c_timestamptz.toISOString(), '2024-02-29T13:45:56.123Z', 'timestamptz')
    eq(r.c_uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'uuid')
    eq(r.c_interval.toISOString(), 'P1Y2M3DT4H5M6.789S', 'interval')
    const js = (await client.query('SELECT c_bool, c_int4, c_int8, c_float8, c_timestamptz, c_bytea FROM matrix WHERE id = 3')).rows[0]
    eq(js, { c_bool: false, c_int4: -7, c_int8: '9007199254740993', c_float8: -1.5e300,
      c_timestamptz: new Date(Date.UTC(2024, 1, 29, 13, 45, 56, 123)), c_bytea: Buffer.alloc(0) }, 'row 3')
  }],
  ['read back binary', async () => {
    // The columns whose binary encoding is valid UTF-8 (see above), raw.
    const res = await client.query({ text: 'SELECT id, c_bool, c_text, c_char, c_date FROM matrix WHERE id = $1',
      values: [1], binary: true, types: raw, rowMode: 'array' })
    eq(res.fields.map((f) => f.format), Array(5).fill('binary'), 'formats')
    eq(res.rows[0].map((v) => Buffer.from(v).toString('hex')),
      ['00000001', '01', Buffer.from(canonicalText[8]).toString('hex'), '6162202020', '00002279'], 'row 1')
    const nulls = await client.query({ text: 'SELECT id, c_int8, c_uuid FROM matrix WHERE id = $1', values: [2], binary: true, types: raw, rowMode: 'array' })
    eq(nulls.rows[0], ['\x00\x00\x00\x02', null, null], 'row 2')
  }],
  ['transaction that commits', async () => {
    await client.query('BEGIN')
    await client.query('INSERT INTO matrix (id, c_text) VALUES ($1, $2)', [10, 'committed'])
    await client.query('COMMIT')
    eq(await count('id = 10'), 1, 'committed row')
  }],
  ['transaction that rolls back', async () => {
    await client.query('BEGIN')
    await client.query('INSERT INTO matrix (id, c_text) VALUES ($1, $2)', [11, 'rolled back'])
    eq(await count('id = 11'), 1, 'row inside the transaction')
    await client.query('ROLLBACK')
    eq(await count('id = 11'), 0, 'rolled-back row')
  }],
  ['unique violation', async () => {
    await rejectsWith(client.query('INSERT INTO matrix (id) VALUES ($1)', [1]), '23505', 'extended protocol')
    await rejectsWith(client.query('INSERT INTO matrix (id) VALUES (1)'), '23505', 'simple protocol')
    await client.query('BEGIN')
    await rejectsWith(client.query('INSERT INTO matrix (id) VALUES ($1)', [1]), '23505', 'in a transaction')
    await rejectsWith(client.query('SELECT 1'), '25P02', 'after the error')
    await client.query('ROLLBACK')
    eq((await client.query('SELECT 1 AS one')).rows, [{ one: 1 }], 'after ROLLBACK')
  }],
  ['prepared statement, reused', async () => {
    for (let i = 0; i < 8; i++) {
      await client.query({ name: 'ins', text: 'INSERT INTO matrix (id, c_text, c_numeric) VALUES ($1, $2, $3)', values: [20 + i, `p${i}`, `${i}.5`] })
      const res = await client.query({ name: 'sel', text: 'SELECT c_text, c_numeric FROM matrix WHERE id = $1', values: [20 + i] })
      eq(res.rows, [{ c_text: `p${i}`, c_numeric: `${i}.5` }], `execution ${i + 1}`)
    }
  }],
  ['COPY without a stream', async () => {
    await rejectsWith(client.query('COPY matrix (id) FROM STDIN'), '57014', 'CopyFail')
    eq(await count('true'), 12, 'rows')
  }],
  ['json and jsonb', async () => {
    // pg sends a JS object as JSON.stringify's text (but an array as a
    // PostgreSQL array) and parses json and jsonb results with JSON.parse.
    await client.query(createJdocs)
    const doc = { s: 'héllo "w" \\ é', b: [1, 2], a: 1, n: null, num: 1.5 }
    await client.query('INSERT INTO jdocs VALUES ($1, $2, $3)', [1, doc, jsonDoc])
    await client.query('INSERT INTO jdocs VALUES ($1, $2, $3)', [2, null, 'null'])
    const res = await client.query('SELECT id, j, t FROM jdocs ORDER BY id')
    eq(res.fields.map((f) => f.dataTypeID), [23, 3802, 114], 'type OIDs')
    eq(res.rows, [{ id: 1, j: doc, t: { b: [1, 2], a: 2 } }, { id: 2, j: null, t: null }], 'parsed')
    const text = await client.query({ text: 'SELECT j, t FROM jdocs ORDER BY id', types: raw, rowMode: 'array' })
    eq(text.rows, [[jsonbText, jsonDoc], [null, 'null']], 'text, as sent')
    const binary = await client.query({ text: 'SELECT j, t FROM jdocs WHERE id = $1', values: [1], binary: true, types: raw, rowMode: 'array' })
    eq(binary.fields.map((f) => f.format), ['binary', 'binary'], 'formats')
    eq(binary.rows[0], ['\x01' + jsonbText, jsonDoc], 'binary: jsonb has a version byte, json is its text')
    const op = await client.query("SELECT j ->> $1 AS s, j -> 'b' AS b, t -> 'a' AS a FROM jdocs WHERE j @> $2::jsonb", ['s', { b: [2] }])
    eq(op.fields.map((f) => f.dataTypeID), [25, 3802, 114], 'operator result types')
    eq(op.rows, [{ s: doc.s, b: [1, 2], a: 2 }], 'j ->> $1 ... WHERE j @> $2::jsonb')
  }],
  ['end', () => client.end()],
]).then(() => { if (process.exitCode) client.end().catch(() => {}) })
