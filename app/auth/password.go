package auth

import (
	"github.com/alexedwards/argon2id"
)

// passwordParams are OWASP's minimum for argon2id (m=19 MiB, t=2, p=1).
var passwordParams = &argon2id.Params{
	Memory:      19 * 1024,
	Iterations:  2,
	Parallelism: 1,
	SaltLength:  16,
	KeyLength:   32,
}

// HashPassword returns the PHC-encoded argon2id hash of the password.
func HashPassword(password string) (string, error) {
	return argon2id.CreateHash(password, passwordParams)
}

// CheckPassword reports whether password matches the stored hash.
func CheckPassword(password, hash string) bool {
	ok, err := argon2id.ComparePasswordAndHash(password, hash)
	return err == nil && ok
}

// dummyHash is compared against when the account does not exist, so a missing
// account takes as long to refuse as a wrong password.
var dummyHash, _ = HashPassword("not-a-real-password-Aa1!")

// CheckNoAccount spends the time of one comparison and returns false.
func CheckNoAccount(password string) bool {
	CheckPassword(password, dummyHash)
	return false
}
