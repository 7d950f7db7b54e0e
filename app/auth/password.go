package auth

import (
	"sync/atomic"
	"testing"

	"github.com/alexedwards/argon2id"
)

// productionParams are OWASP's minimum for argon2id (m=19 MiB, t=2, p=1).
var productionParams = argon2id.Params{
	Memory:      19 * 1024,
	Iterations:  2,
	Parallelism: 1,
	SaltLength:  16,
	KeyLength:   32,
}

// testParams are argon2id's near-smallest cost, for LowerCostForTests.
var testParams = argon2id.Params{
	Memory:      64,
	Iterations:  1,
	Parallelism: 1,
	SaltLength:  16,
	KeyLength:   32,
}

// passwordParams are the parameters of the hashes HashPassword makes. A hash records its
// own, so CheckPassword checks any hash with the parameters it was made with.
var passwordParams atomic.Pointer[argon2id.Params]

func init() { passwordParams.Store(&productionParams) }

// HashPassword returns the PHC-encoded argon2id hash of the password.
func HashPassword(password string) (string, error) {
	return argon2id.CreateHash(password, passwordParams.Load())
}

// CheckPassword reports whether password matches the stored hash.
func CheckPassword(password, hash string) bool {
	ok, err := argon2id.ComparePasswordAndHash(password, hash)
	return err == nil && ok
}

// dummyHash is compared against when the account does not exist, so a missing
// account takes as long to refuse as a wrong password.
var dummyHash, _ = argon2id.CreateHash("not-a-real-password-Aa1!", &productionParams)

// CheckNoAccount spends the time of one comparison and returns false.
func CheckNoAccount(password string) bool {
	CheckPassword(password, dummyHash)
	return false
}

// LowerCostForTests makes the hashes HashPassword makes from now on cheap. A hash at
// OWASP's cost takes 19 MiB and tens of milliseconds of CPU, on purpose; the tests create
// and sign in users by the thousand, and those hashes were half of the CPU of the packages
// that test over HTTP (docs/PERFORMANCE.md, "Seventeenth round"). It panics outside a test
// binary, so no server can hash with it.
func LowerCostForTests() {
	if !testing.Testing() {
		panic("auth.LowerCostForTests called outside a test binary")
	}
	passwordParams.Store(&testParams)
}
