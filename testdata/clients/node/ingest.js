// Ingest tables from node-postgres: a producer begins, sends rows with
// duplicates, a stale incarnation is fenced, a gap is loud. See
// internal/clienttest/ingest_test.go.
'use strict'
const { Client } = require('pg')
const { connection, run, eq, rejectsWith } = require('./matrix')

const client = new Client({ ...connection, ssl: false })
const notices = []
client.on('notice', (n) => notices.push(n.message))
const insert = 'INSERT INTO events VALUES ($1, $2, $3, $4)'

run([
  ['connect', () => client.connect()],
  ['create', () => client.query(`CREATE TABLE events (producer text NOT NULL, producer_epoch bigint NOT NULL,
      seq bigint NOT NULL, payload text)
      WITH (ingest_producer = 'producer', ingest_sequence = 'seq', ingest_epoch = 'producer_epoch', ingest_window = 16)`)],
  ['begin the producer', async () => {
    const res = await client.query("SELECT epoch, high_water, pending FROM epochdb_producer_begin('events', 'node-1')")
    eq(res.rows[0].epoch, '1', 'epoch')
    eq(res.rows[0].high_water, '0', 'high_water')
  }],
  ['rows with a retry are admitted once', async () => {
    for (const seq of [1, 2, 2, 3, 1]) {
      await client.query(insert, ['node-1', 1, seq, `row ${seq}`])
    }
    const res = await client.query("SELECT count(*) AS n FROM events WHERE producer = 'node-1'")
    eq(res.rows[0].n, '3', 'distinct rows')
    eq(notices.filter((n) => n.includes('duplicate')).length, 2, 'duplicate notices')
  }],
  ['a new epoch fences the old incarnation', async () => {
    const res = await client.query("SELECT epoch FROM epochdb_producer_begin('events', 'node-1')")
    eq(res.rows[0].epoch, '2', 'epoch')
    await rejectsWith(client.query(insert, ['node-1', 1, 4, 'zombie']), '55Q01', 'stale epoch')
    await client.query(insert, ['node-1', 2, 4, 'row 4'])
  }],
  ['a gap is loud', () => rejectsWith(client.query(insert, ['node-1', 2, 40, 'far']), '55Q02', 'gap')],
  ['close', () => client.end()],
])
