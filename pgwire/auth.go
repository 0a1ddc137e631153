package pgwire

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Server.AuthMethod values, named as in pg_hba.conf.
const (
	authSCRAM     = "scram-sha-256"
	authMD5       = "md5"
	authCleartext = "password"
)

// authenticate runs the authentication exchange for user, up to but not
// including AuthenticationOk, and reports whether the client may proceed.
// There is one role, the superuser: without a password every user name is
// trusted as it; with one, the name must be the role's and the password
// must match. Either mismatch gets the same 28P01, as in PostgreSQL.
func (c *conn) authenticate(user string) bool {
	s := c.srv
	if s.Password == "" {
		return true
	}
	known := user == s.user()
	var ok bool
	var err error
	switch s.AuthMethod {
	case authMD5:
		ok, err = c.authMD5(user, known)
	case authCleartext:
		ok, err = c.authCleartext(known)
	default:
		ok, err = c.authSCRAM(known)
	}
	var pe *pgerr.Error
	switch {
	case errors.As(err, &pe):
		c.log.Info("pgwire: authentication failed", "user", user, "err", err)
		c.fatal(pe)
		return false
	case err != nil:
		// psql hangs up at the password request to ask the user for one.
		c.readFailed(err, "invalid authentication message")
		return false
	case !ok:
		c.log.Info("pgwire: password authentication failed", "user", user, "method", s.AuthMethod)
		c.fatal(pgerr.New(pgerr.InvalidPassword, "password authentication failed for user \"%s\"", user))
		return false
	}
	return true
}

// authResponse reads the client's answer to an authentication request of
// type authType: the 'p' message's layout depends on the request.
func authResponse[M pgproto3.FrontendMessage](c *conn, authType uint32) (M, error) {
	var m M
	c.be.SetAuthType(authType)
	msg, err := c.be.Receive()
	if err != nil {
		return m, err
	}
	m, ok := msg.(M)
	if !ok {
		return m, pgerr.New(pgerr.ProtocolViolation, "expected %s message, got %s", messageName(m), messageName(msg))
	}
	return m, nil
}

func (c *conn) authCleartext(known bool) (bool, error) {
	c.send(&pgproto3.AuthenticationCleartextPassword{})
	m, err := authResponse[*pgproto3.PasswordMessage](c, pgproto3.AuthTypeCleartextPassword)
	if err != nil {
		return false, err
	}
	return known && subtle.ConstantTimeCompare([]byte(m.Password), []byte(c.srv.Password)) == 1, nil
}

func (c *conn) authMD5(user string, known bool) (bool, error) {
	var salt [4]byte
	rand.Read(salt[:])
	c.send(&pgproto3.AuthenticationMD5Password{Salt: salt})
	m, err := authResponse[*pgproto3.PasswordMessage](c, pgproto3.AuthTypeMD5Password)
	if err != nil {
		return false, err
	}
	want := md5Password(c.srv.Password, user, salt)
	return known && subtle.ConstantTimeCompare([]byte(m.Password), []byte(want)) == 1, nil
}

// md5Password is the md5 method's response: "md5" followed by
// hex(md5(hex(md5(password + user)) + salt)).
func md5Password(password, user string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	outer := md5.Sum(append(hex.AppendEncode(nil, inner[:]), salt[:]...))
	return "md5" + hex.EncodeToString(outer[:])
}

func (c *conn) authSCRAM(known bool) (bool, error) {
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	first, err := authResponse[*pgproto3.SASLInitialResponse](c, pgproto3.AuthTypeSASL)
	if err != nil {
		return false, err
	}
	if first.AuthMechanism != scramMechanism {
		return false, pgerr.New(pgerr.ProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	x := scramExchange{secret: c.srv.scram}
	serverFirst, err := x.first(first.Data, newSCRAMNonce())
	if err != nil {
		return false, err
	}
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	final, err := authResponse[*pgproto3.SASLResponse](c, pgproto3.AuthTypeSASLContinue)
	if err != nil {
		return false, err
	}
	serverFinal, ok, err := x.final(final.Data)
	if err != nil || !ok || !known {
		return false, err
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
	return true, nil
}
