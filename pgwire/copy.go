package pgwire

import (
	"bytes"
	"context"
	"io"

	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// runCopy runs a COPY portal: FROM STDIN reads the client's CopyData until
// CopyDone or CopyFail; TO STDOUT sends CopyData and then CopyDone. Either
// way the portal's CommandComplete follows.
func (c *conn) runCopy(ctx context.Context, p Portal, spec *sql.CopySpec) error {
	var format byte
	if spec.Binary {
		format = 1
	}
	formats := make([]uint16, spec.Columns)
	for i := range formats {
		formats[i] = uint16(format)
	}
	var tag string
	if spec.In {
		c.send(&pgproto3.CopyInResponse{OverallFormat: format, ColumnFormatCodes: formats})
		src := &copySource{c: c}
		err := c.call(func() (err error) {
			tag, err = c.sess.CopyFrom(ctx, p, src)
			return err
		})
		if src.readErr != nil {
			c.readFailed(src.readErr, "invalid frontend message during COPY")
			return nil
		}
		if err != nil {
			// The client's remaining CopyData is dropped by the main loop.
			return err
		}
		// The session may stop reading before CopyDone; the client's
		// CopyFail still fails the COPY.
		for src.err == nil {
			src.Next()
		}
		if src.readErr != nil {
			c.readFailed(src.readErr, "invalid frontend message during COPY")
			return nil
		}
		if src.err != io.EOF {
			return src.err
		}
	} else {
		c.send(&pgproto3.CopyOutResponse{OverallFormat: format, ColumnFormatCodes: formats})
		err := c.call(func() (err error) {
			tag, err = c.sess.CopyTo(ctx, p, c.writeCopyData)
			return err
		})
		if err != nil {
			// ErrorResponse ends copy-out mode; no CopyDone.
			return err
		}
		c.send(&pgproto3.CopyDone{})
	}
	c.complete(tag)
	return nil
}

func (c *conn) writeCopyData(data []byte) error {
	c.send(&pgproto3.CopyData{Data: data})
	if len(c.out) >= flushThreshold {
		return c.flush()
	}
	return c.werr
}

// copySource is the sql.CopySource of a COPY FROM STDIN: it reads the
// client's copy-in messages.
type copySource struct {
	c       *conn
	err     error // sticky: io.EOF after CopyDone, or why the COPY failed
	readErr error // the connection broke; it closes after the COPY
}

// Next returns the next CopyData's bytes. They are the caller's to keep: the
// message buffer itself is reused by the next read.
func (s *copySource) Next() ([]byte, error) {
	for s.err == nil {
		msg, err := s.c.be.Receive()
		if err != nil {
			s.readErr = err
			s.err = pgerr.New(pgerr.ConnectionException, "connection lost during COPY from stdin")
			break
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			return bytes.Clone(m.Data), nil
		case *pgproto3.CopyDone:
			s.err = io.EOF
		case *pgproto3.CopyFail:
			s.err = pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
			// Ignored during copy-in, as PostgreSQL does, for clients that
			// send them out of habit.
		default:
			s.err = pgerr.New(pgerr.ProtocolViolation, "unexpected %s message during COPY from stdin", messageName(msg))
		}
	}
	return nil, s.err
}
