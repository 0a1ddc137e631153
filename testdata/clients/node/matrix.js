// What pg.js and postgresjs.js share: the matrix table, the canonical row as
// PostgreSQL 15 sends it in text (TimeZone UTC), and a tiny checker. See
// internal/clienttest/doc.go for what every client does.
'use strict'
const assert = require('node:assert/strict')

exports.createMatrix = `CREATE TABLE matrix (
  id int4 PRIMARY KEY,
  c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,
  c_float4 float4, c_float8 float8, c_numeric numeric,
  c_text text, c_varchar varchar(10), c_char char(5), c_bytea bytea,
  c_date date, c_timestamp timestamp, c_timestamptz timestamptz,
  c_uuid uuid, c_interval interval)`

exports.columns = ['id', 'c_bool', 'c_int2', 'c_int4', 'c_int8', 'c_float4', 'c_float8', 'c_numeric',
  'c_text', 'c_varchar', 'c_char', 'c_bytea', 'c_date', 'c_timestamp', 'c_timestamptz', 'c_uuid', 'c_interval']

// canonicalText is the canonical row, column by column, as text: what goes
// in as parameters and what must come back.
exports.canonicalText = ['1', 't', '-32768', '2147483647', '-9223372036854775808',
  '3.14159', '0.1', '12345678901234567890.123456789',
  'héllo, "wörld" \\ \'q\'', 'abc', 'ab   ', '\\x00ff10',
  '2024-02-29', '2024-02-29 13:45:56.123456', '2024-02-29 13:45:56.123456+00',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 mons 3 days 04:05:06.789']

// connection is the server to use, from libpq's environment variables.
exports.connection = {
  host: process.env.PGHOST,
  port: Number(process.env.PGPORT),
  user: process.env.PGUSER,
  database: process.env.PGDATABASE,
}

// run runs the steps in order, printing one line each, and sets a failing
// exit code if any step throws. A step that throws ends the run.
exports.run = async (steps) => {
  for (const [name, fn] of steps) {
    try {
      await fn()
      console.log(`ok   ${name}`)
    } catch (err) {
      console.log(`FAIL ${name}: ${err && err.stack ? err.stack : err}`)
      process.exitCode = 1
      return
    }
  }
}

// eq is a deep equality assertion with the value's description.
exports.eq = (got, want, what) => assert.deepStrictEqual(got, want, what)

// sqlState asserts that promise rejects with the given SQLSTATE.
exports.rejectsWith = async (promise, code, what) => {
  try {
    await promise
  } catch (err) {
    assert.equal(err.code, code, `${what}: ${err.message}`)
    return
  }
  assert.fail(`${what}: succeeded, want SQLSTATE ${code}`)
}
