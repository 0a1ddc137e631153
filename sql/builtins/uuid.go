package builtins

import (
	"crypto/rand"

	"github.com/epochdb/epochdb/sql/types"
)

// genRandomUUID is a version 4 UUID: 122 random bits.
func genRandomUUID(Env, []any) (any, error) {
	var u types.UUID
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u, nil
}
