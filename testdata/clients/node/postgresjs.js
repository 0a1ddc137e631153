// The client matrix for postgres.js (postgres). See internal/clienttest/doc.go.
//
// postgres.js reads pg_type when it connects, prepares every query as a
// named statement (reused when the same query runs again), leaves untyped
// parameters to the server to infer, serializes each by the type the server
// describes, and reads results as text. Its serializers for the date and
// time types go through JavaScript's Date, which keeps milliseconds only, so
// the raw connection below declares those types (and the others it would
// convert) as strings both ways, as its `types` option allows.
'use strict'
const { pipeline } = require('node:stream/promises')
const { Readable } = require('node:stream')
const postgres = require('postgres')
const { createMatrix, columns, canonicalText, connection, run, eq, rejectsWith } = require('./matrix')

const options = { ...connection, ssl: false, max: 1, connection: { TimeZone: 'UTC' }, onnotice: () => {} }
const sql = postgres(options)
const asText = (oid) => ({ to: oid, from: [oid], serialize: (x) => '' + x, parse: (x) => x })
const raw = postgres({
  ...options,
  types: Object.fromEntries([16, 17, 20, 21, 23, 700, 701, 1082, 1114, 1184].map((oid) => [`t${oid}`, asText(oid)])),
})
// rawJSON reads and writes json and jsonb as their text, unparsed.
const rawJSON = postgres({ ...options, types: { t114: asText(114), t3802: asText(3802) } })
// The json step's table and values (see internal/clienttest/json_test.go):
// json keeps its text as written, jsonb is written in its normal form.
const createJdocs = 'CREATE TABLE jdocs (id int4 PRIMARY KEY, j jsonb, t json)'
const jsonDoc = '{"b": [1, 2],  "a": 1, "a": 2}'
const jsonbIn = '{"s": "héllo \\"w\\" \\\\ é", "b": [1, 2], "num": 1.5, "a": 0, "n": null, "a": 1}'
const jsonbText = '{"a": 1, "b": [1, 2], "n": null, "s": "héllo \\"w\\" \\\\ é", "num": 1.5}'
// batchesOf is 1..n in batches of size, the last one short.
const batchesOf = (size, n) => Array.from({ length: Math.ceil(n / size) },
  (_, b) => Array.from({ length: Math.min(size, n - b * size) }, (_, i) => b * size + i + 1))
const count = async (where) => Number((await sql.unsafe(`SELECT count(*) AS n FROM matrix WHERE ${where}`))[0].n)

run([
  ['create', () => sql.unsafe(createMatrix)],
  ['insert with parameters', async () => {
    const values = canonicalText.slice()
    values[10] = 'ab'
    const res = await raw.unsafe(`INSERT INTO matrix VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, values)
    eq([res.command, res.count], ['INSERT', 1], 'command and count')
    await sql`INSERT INTO matrix ${sql({ id: 2 })}`
    // JavaScript values, in the tagged template, serialized by postgres.js.
    const row = {
      id: 3, c_bool: false, c_int2: -1, c_int4: -7, c_int8: 9007199254740993n, c_float8: -1.5e300,
      c_numeric: '-0.000001', c_bytea: Buffer.from([0xde, 0xad]), c_date: new Date(Date.UTC(2024, 1, 29)),
      c_timestamptz: new Date(Date.UTC(2024, 1, 29, 13, 45, 56, 123)), c_uuid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    }
    await sql`INSERT INTO matrix ${sql(row)}`
  }],
  ['read back text, as sent', async () => {
    const res = await raw`SELECT * FROM matrix WHERE id = ${1}`.values()
    eq(res.columns.map((c) => [c.name, c.type]), columns.map((c, i) => [c,
      [23, 16, 21, 23, 20, 700, 701, 1700, 25, 1043, 1042, 17, 1082, 1114, 1184, 2950, 1186][i]]), 'columns')
    eq(res[0], canonicalText, 'row 1')
    eq((await raw`SELECT * FROM matrix WHERE id = ${2}`.values())[0], ['2', ...Array(columns.length - 1).fill(null)], 'row 2')
  }],
  ['read back text, parsed', async () => {
    const [r] = await sql`SELECT * FROM matrix WHERE id = ${1}`
    eq([r.c_bool, r.c_int2, r.c_int4, r.c_int8, r.c_float4, r.c_float8, r.c_numeric],
      [true, -32768, 2147483647, '-9223372036854775808', 3.14159, 0.1, '12345678901234567890.123456789'], 'numbers')
    eq([r.c_text, r.c_varchar, r.c_char], ['héllo, "wörld" \\ \'q\'', 'abc', 'ab   '], 'strings')
    eq(r.c_bytea, Buffer.from([0x00, 0xff, 0x10]), 'bytea')
    eq([r.c_date, r.c_timestamp, r.c_timestamptz].map((d) => d.toISOString()),
      ['2024-02-29T00:00:00.000Z', '2024-02-29T13:45:56.123Z', '2024-02-29T13:45:56.123Z'], 'dates')
    eq([r.c_uuid, r.c_interval], ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 mons 3 days 04:05:06.789'], 'uuid, interval')
    const [js] = await sql`SELECT c_bool, c_int2, c_int4, c_int8, c_float8, c_numeric, c_bytea, c_date, c_timestamptz, c_uuid FROM matrix WHERE id = 3`
    eq(js, {
      c_bool: false, c_int2: -1, c_int4: -7, c_int8: '9007199254740993', c_float8: -1.5e300, c_numeric: '-0.000001',
      c_bytea: Buffer.from([0xde, 0xad]), c_date: new Date(Date.UTC(2024, 1, 29)),
      c_timestamptz: new Date(Date.UTC(2024, 1, 29, 13, 45, 56, 123)), c_uuid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    }, 'row 3')
  }],
  ['simple protocol', async () => {
    const results = await sql.unsafe('UPDATE matrix SET c_int8 = 1 WHERE id = 3; SELECT c_int8 FROM matrix WHERE id = 3').simple()
    eq([results[0].command, results[0].count, results[1][0].c_int8], ['UPDATE', 1, '1'], 'two statements')
  }],
  ['transaction that commits', async () => {
    await sql.begin(async (tx) => {
      await tx`INSERT INTO matrix (id, c_text) VALUES (${10}, ${'committed'})`
    })
    eq(await count('id = 10'), 1, 'committed row')
  }],
  ['transaction that rolls back', async () => {
    const err = await sql.begin(async (tx) => {
      await tx`INSERT INTO matrix (id, c_text) VALUES (${11}, ${'rolled back'})`
      eq((await tx`SELECT count(*)::int AS n FROM matrix WHERE id = 11`)[0].n, 1, 'row inside the transaction')
      throw new Error('roll back')
    }).catch((e) => e)
    eq(err.message, 'roll back', 'the error')
    eq(await count('id = 11'), 0, 'rolled-back row')
  }],
  ['unique violation', async () => {
    await rejectsWith(sql`INSERT INTO matrix (id) VALUES (${1})`, '23505', 'duplicate key')
    const err = await sql.begin(async (tx) => {
      await tx`INSERT INTO matrix (id) VALUES (${12})`
      await tx`INSERT INTO matrix (id) VALUES (${1})`
    }).catch((e) => e)
    eq(err.code, '23505', 'in a transaction')
    eq(await count('id = 12'), 0, 'the failed transaction\'s row')
  }],
  ['prepared statement, reused', async () => {
    for (let i = 0; i < 8; i++) {
      await sql`INSERT INTO matrix (id, c_text, c_numeric) VALUES (${20 + i}, ${'p' + i}, ${i + '.5'})`
      const rows = await sql`SELECT c_text, c_numeric FROM matrix WHERE id = ${20 + i}`
      eq(rows.map((r) => ({ ...r })), [{ c_text: 'p' + i, c_numeric: i + '.5' }], `execution ${i + 1}`)
    }
  }],
  ['COPY FROM STDIN', async () => {
    const lines = []
    for (let i = 0; i < 100; i++) lines.push(`${100 + i}\tcopy ${i}\\twith a tab\t${i}.25\n`)
    lines.push('200\t\\N\t\\N\n')
    await pipeline(Readable.from(lines), await sql`COPY matrix (id, c_text, c_numeric) FROM STDIN`.writable())
    eq(await count('id >= 100'), 101, 'copied rows')
    const [r] = await sql`SELECT c_text, c_numeric FROM matrix WHERE id = 199`
    eq({ ...r }, { c_text: 'copy 99\twith a tab', c_numeric: '99.25' }, 'copied row')
  }],
  ['cursor: a portal read in pieces', async () => {
    const ids = []
    for await (const rows of sql`SELECT id FROM matrix WHERE id >= ${100} ORDER BY id`.cursor(7)) {
      if (ids.length === 0) eq(rows.length, 7, 'first batch')
      ids.push(...rows.map((r) => r.id))
    }
    eq(ids, Array.from({ length: 101 }, (_, i) => 100 + i), 'ids')
  }],
  ['cursor: every batch until the end', async () => {
    // postgres.js hands a batch to the loop for every CommandComplete whose
    // count is not 0: a result that is an exact multiple of the batch
    // ends with an Execute of no rows, which must say SELECT 0.
    for (const size of [1, 7, 100]) {
      for (const n of [0, 1, 99, 100, 101, 300, 1000]) {
        const batches = []
        for await (const rows of sql`SELECT g FROM generate_series(1, ${n}::int4) g`.cursor(size)) {
          batches.push(rows.map((r) => r.g))
        }
        eq(batches, batchesOf(size, n), `cursor(${size}) over ${n} rows`)
      }
    }
    const sizes = []
    await sql`SELECT g FROM generate_series(1, 250) g`.cursor(100, (rows) => { sizes.push(rows.length) })
    eq(sizes, [100, 100, 50], 'cursor(100, fn)')
  }],
  ['cursor: an early break', async () => {
    const seen = []
    for await (const rows of sql`SELECT g FROM generate_series(1, 1000) g`.cursor(100)) {
      seen.push(rows[0].g)
      if (seen.length === 3) break
    }
    eq(seen, [1, 101, 201], 'first rows of the batches read')
    eq(await count('id >= 100'), 101, 'the connection works after the break')
  }],
  ['cursor: inside sql.begin', async () => {
    await sql.begin(async (tx) => {
      await tx`UPDATE matrix SET c_int4 = id * 2 WHERE id >= 100`
      const batches = []
      for await (const rows of tx`SELECT id, c_int4 FROM matrix WHERE id >= 100 ORDER BY id`.cursor(25)) {
        for (const r of rows) eq(r.c_int4, r.id * 2, `the transaction's own write to row ${r.id}`)
        batches.push(rows.map((r) => r.id - 99))
      }
      eq(batches, batchesOf(25, 101), 'batches')
      for await (const rows of tx`SELECT id FROM matrix WHERE id >= 100 ORDER BY id`.cursor(10)) {
        eq(rows.length, 10, 'first batch')
        break
      }
      eq(Number((await tx`SELECT count(*) AS n FROM matrix WHERE c_int4 = id * 2`)[0].n), 101, 'the transaction goes on after a break')
      await tx`UPDATE matrix SET c_int4 = NULL WHERE id >= 100`
    })
    eq(await count('id >= 100 AND c_int4 IS NULL'), 101, 'committed')
  }],
  ['COPY TO STDOUT', async () => {
    let out = ''
    const readable = await sql`COPY (SELECT id, c_text, c_numeric FROM matrix WHERE id IN (1, 2, 198) ORDER BY id) TO STDOUT (FORMAT csv)`.readable()
    for await (const chunk of readable) out += chunk
    eq(out, '1,"héllo, ""wörld"" \\ \'q\'",12345678901234567890.123456789\n2,,\n198,copy 98\twith a tab,98.25\n', 'CSV')
  }],
  ['json and jsonb', async () => {
    // postgres.js serializes json and jsonb parameters with JSON.stringify
    // (a string too: it becomes a JSON string) and parses both with
    // JSON.parse; sql.json() sends its value as jsonb.
    await sql.unsafe(createJdocs)
    const doc = { s: 'héllo "w" \\ é', b: [1, 2], a: 1, n: null, num: 1.5 }
    await sql`INSERT INTO jdocs VALUES (${1}, ${sql.json(doc)}, ${{ b: [1, 2], a: 2 }})`
    await sql`INSERT INTO jdocs VALUES (${2}, ${doc}::jsonb, ${null})`
    await rawJSON`INSERT INTO jdocs VALUES (${3}, ${jsonbIn}, ${jsonDoc})`
    const res = await sql`SELECT id, j, t FROM jdocs ORDER BY id`
    eq(res.columns.map((c) => c.type), [23, 3802, 114], 'type OIDs')
    eq([...res], [{ id: 1, j: doc, t: { b: [1, 2], a: 2 } }, { id: 2, j: doc, t: null }, { id: 3, j: doc, t: { b: [1, 2], a: 2 } }], 'parsed')
    eq([...await rawJSON`SELECT j, t FROM jdocs ORDER BY id`.values()],
      [[jsonbText, '{"b":[1,2],"a":2}'], [jsonbText, null], [jsonbText, jsonDoc]], 'as text')
    const simple = await sql.unsafe('SELECT j, t FROM jdocs WHERE id = 3').simple()
    eq([...simple], [{ j: doc, t: { b: [1, 2], a: 2 } }], 'simple protocol')
    const op = await sql`SELECT j ->> ${'s'} AS s, j -> 'b' AS b, t -> 'a' AS a FROM jdocs WHERE j @> ${{ b: [2] }}::jsonb AND id = ${3}`
    eq(op.columns.map((c) => c.type), [25, 3802, 114], 'operator result types')
    eq([...op], [{ s: doc.s, b: [1, 2], a: 2 }], 'j ->> $1 ... WHERE j @> $2::jsonb')
  }],
]).finally(() => Promise.all([sql.end(), raw.end(), rawJSON.end()]))
