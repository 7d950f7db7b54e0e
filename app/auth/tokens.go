package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// ErrBadToken is returned for a token that is not of our form.
var ErrBadToken = errors.New("malformed token")

// NewToken makes an API token for a tenant: "<tenant id>.<43 chars of 32 random bytes>".
// The tenant prefix lets the lookup stay inside the tenant's rows.
func NewToken(tenantID int64) (token, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	secret := base64.RawURLEncoding.EncodeToString(b)
	return strconv.FormatInt(tenantID, 10) + "." + secret, HashToken(secret)
}

// ParseToken splits a token into its tenant id and the hash of its secret.
func ParseToken(token string) (tenantID int64, hash string, err error) {
	prefix, secret, ok := strings.Cut(token, ".")
	if !ok || len(secret) < 43 {
		return 0, "", ErrBadToken
	}
	tenantID, err = strconv.ParseInt(prefix, 10, 64)
	if err != nil || tenantID <= 0 {
		return 0, "", ErrBadToken
	}
	return tenantID, HashToken(secret), nil
}

// HashToken is the stored form of a token secret. A fast hash is enough: the secret has
// 256 bits of entropy, so it cannot be guessed from the hash.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
