// Package pgwire speaks the PostgreSQL frontend/backend protocol, version
// 3.0, on top of pgproto3's message codecs. It owns connections: startup,
// authentication, the simple and extended query protocols, COPY, cancel
// requests and graceful shutdown. Everything a statement means is the SQL
// layer's business, reached through the small Engine and Session interfaces.
//
// # A connection
//
//	client                                server
//	  SSLRequest                   ──▶   'S' and a TLS handshake with a
//	                                     TLSConfig, else 'N'; read on
//	  GSSENCRequest                ──▶   'N', read on
//	  StartupMessage (user, db)    ──▶
//	                               ◀──   Authentication* exchange (trust,
//	                                     SCRAM-SHA-256, md5 or cleartext)
//	                               ◀──   AuthenticationOk, ParameterStatus...,
//	                                     BackendKeyData, ReadyForQuery
//	  Query | Parse Bind Describe
//	  Execute Close Flush Sync ... ──▶   one goroutine reads, runs, replies
//
// One goroutine serves a connection from accept to close and owns all of its
// state: the Session, the prepared statements and portals by name, and the
// output buffer. The only other goroutine that touches a connection is a
// CancelRequest (or Shutdown), and it only cancels the running statement's
// context or sets a read deadline, under a mutex.
//
// # Statements and portals
//
// Both protocols run through the same three Session calls: Prepare, Bind,
// Execute. A simple Query is PrepareAll, then Bind without parameters and
// Execute to the end for each statement, stopping at the first error, then
// Session.Sync, which ends the implicit transaction. The extended protocol
// exposes the steps: Parse names a Prepared, Bind decodes the parameters with
// the statement's parameter types and names a Portal, Execute runs it up to a
// row limit (PortalSuspended; a later Execute resumes), and Sync ends the
// implicit transaction. After an error the server discards every message but
// Sync, as PostgreSQL does, so a pipelined batch fails as a unit. Portals die
// with the transaction that made them: at each ReadyForQuery 'I' they close.
//
// # Output and flushing
//
// Replies go to a buffer and reach the socket only when the client will wait
// for them: at ReadyForQuery, on Flush, and whenever the server is about to
// block reading, which covers clients that wait without sending Flush. A
// pipelined batch of a hundred statements is therefore answered with a few
// writes, not hundreds. Large results are written as the buffer fills.
//
// # Errors
//
// Errors are *pgerr.Error; their fields map one to one onto ErrorResponse. A
// malformed or oversized message (longer than Server.MaxMessageSize) or an
// unknown message type breaks the framing, so the connection gets a FATAL
// 08P01 and closes; no other connection notices. A panic in the SQL layer is
// recovered per connection and logged with its stack; the client gets XX000.
// The session is then rolled back with its own ROLLBACK, which is exactly what
// PostgreSQL does to a statement that fails outside a transaction block. If
// the client was inside a block, no rollback can keep the client's view of it
// intact, so that one connection closes instead.
//
// # Cancel and shutdown
//
// BackendKeyData gives each connection a process id and a random secret. A
// CancelRequest on a new connection that presents both cancels the running
// statement's context; the SQL layer reports 57014. Shutdown stops accepting,
// then sets a read deadline in the past on every connection: a connection
// notices only when it next waits for the client, so a running statement (a
// COMMIT waiting for its fsync, say) finishes and its reply is flushed first.
// The connection then gets FATAL 57P01 and its session is closed.
package pgwire
