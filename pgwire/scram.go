package pgwire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"golang.org/x/text/secure/precis"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it over
// AuthenticationSASL, without channel binding (there is no TLS yet):
//
//	client-first   n,,n=user,r=<client nonce>
//	server-first   r=<client nonce><server nonce>,s=<base64 salt>,i=4096
//	client-final   c=biws,r=<both nonces>,p=<base64 ClientProof>
//	server-final   v=<base64 ServerSignature>
//
// The server keeps only StoredKey = H(ClientKey) and ServerKey, as
// PostgreSQL keeps them in pg_authid. It checks the proof by recovering
// ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage) and hashing it;
// its own signature proves to the client that it knew the password too. The
// user name in client-first is ignored, as PostgreSQL ignores it: the
// startup message's user is the one authenticated.

const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096 // PostgreSQL's default scram_iterations
)

type scramSecret struct {
	salt       []byte
	iterations int
	storedKey  []byte
	serverKey  []byte
}

func newSCRAMSecret(password string) (*scramSecret, error) {
	salt := make([]byte, 16)
	rand.Read(salt)
	return deriveSCRAMSecret(password, salt, scramIterations)
}

func deriveSCRAMSecret(password string, salt []byte, iterations int) (*scramSecret, error) {
	// Clients SASLprep the password where it is valid; so must the server.
	if p, err := precis.OpaqueString.String(password); err == nil {
		password = p
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := scramHMAC(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	return &scramSecret{
		salt:       salt,
		iterations: iterations,
		storedKey:  storedKey[:],
		serverKey:  scramHMAC(salted, "Server Key"),
	}, nil
}

func scramHMAC(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

func newSCRAMNonce() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// scramExchange is the server's side of one SCRAM conversation.
type scramExchange struct {
	secret          *scramSecret
	gs2Header       string // "n,," or "y,,"
	clientFirstBare string
	serverFirst     string
	nonce           string // the client's and the server's
}

func errSCRAM(format string, args ...any) error {
	return pgerr.New(pgerr.ProtocolViolation, format, args...)
}

// first reads client-first-message and returns server-first-message.
func (x *scramExchange) first(msg []byte, serverNonce string) (string, error) {
	s := string(msg)
	flag, rest, ok := strings.Cut(s, ",")
	switch {
	case !ok:
		return "", errSCRAM("malformed SCRAM message")
	case strings.HasPrefix(flag, "p="):
		return "", errSCRAM("channel binding is not supported without TLS")
	case flag != "n" && flag != "y":
		return "", errSCRAM("malformed SCRAM message: unexpected channel-binding flag %q", flag)
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	if !ok {
		return "", errSCRAM("malformed SCRAM message")
	}
	if authzid != "" {
		return "", errSCRAM("client uses authorization identity, but it is not supported")
	}
	attrs := strings.Split(bare, ",")
	if strings.HasPrefix(attrs[0], "m=") {
		return "", errSCRAM("client requires an unsupported SCRAM extension")
	}
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") || !printableNonce(attrs[1][2:]) {
		return "", errSCRAM("malformed SCRAM message")
	}
	for _, ext := range attrs[2:] {
		if len(ext) < 2 || ext[1] != '=' || !('a' <= ext[0] && ext[0] <= 'z' || 'A' <= ext[0] && ext[0] <= 'Z') {
			return "", errSCRAM("malformed SCRAM message: attribute expected, found %q", ext)
		}
	}
	x.gs2Header = s[:len(s)-len(bare)]
	x.clientFirstBare = bare
	x.nonce = attrs[1][2:] + serverNonce
	x.serverFirst = "r=" + x.nonce + ",s=" + base64.StdEncoding.EncodeToString(x.secret.salt) + ",i=" + strconv.Itoa(x.secret.iterations)
	return x.serverFirst, nil
}

// printableNonce reports whether a nonce is non-empty printable ASCII
// without commas, as RFC 5802 requires.
func printableNonce(n string) bool {
	for i := 0; i < len(n); i++ {
		if n[i] < 0x21 || n[i] > 0x7e || n[i] == ',' {
			return false
		}
	}
	return n != ""
}

// final reads client-final-message. It reports whether the client's proof
// is right and, if so, returns server-final-message.
func (x *scramExchange) final(msg []byte) (string, bool, error) {
	s := string(msg)
	i := strings.LastIndex(s, ",p=")
	if i < 0 {
		return "", false, errSCRAM("malformed SCRAM message: no proof")
	}
	withoutProof := s[:i]
	proof, err := base64.StdEncoding.DecodeString(s[i+3:])
	if err != nil || len(proof) != sha256.Size {
		return "", false, errSCRAM("malformed SCRAM message: invalid proof")
	}
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || attrs[0] != "c="+base64.StdEncoding.EncodeToString([]byte(x.gs2Header)) {
		return "", false, errSCRAM("SCRAM channel binding check failed")
	}
	if attrs[1] != "r="+x.nonce {
		return "", false, errSCRAM("SCRAM nonce mismatch")
	}
	authMessage := x.clientFirstBare + "," + x.serverFirst + "," + withoutProof
	clientKey := scramHMAC(x.secret.storedKey, authMessage)
	for i := range clientKey {
		clientKey[i] ^= proof[i]
	}
	storedKey := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(storedKey[:], x.secret.storedKey) != 1 {
		return "", false, nil
	}
	return "v=" + base64.StdEncoding.EncodeToString(scramHMAC(x.secret.serverKey, authMessage)), true, nil
}
