// Package secret seals the secrets a tenant stores (an SSO client secret, an SMTP password)
// with AES-256-GCM under a key derived from the server's CRM_SECRET_KEY, so the database
// never holds them in clear.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// Sealer seals secrets at rest with AES-256-GCM under a key derived from the server's
// CRM_SECRET_KEY (its SHA-256, so any long random string will do).
type Sealer struct{ aead cipher.AEAD }

// NewSealer is the sealer of key; nil when key is empty (no secret can then be stored).
func NewSealer(key string) *Sealer {
	if key == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(key))
	block, _ := aes.NewCipher(sum[:]) // a 32-byte key never fails
	aead, _ := cipher.NewGCM(block)
	return &Sealer{aead: aead}
}

// Seal encrypts plain: base64 of the nonce followed by the ciphertext.
func (s *Sealer) Seal(plain string) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(plain), nil))
}

// Open decrypts what Seal made (an error for anything else, or another key's).
func (s *Sealer) Open(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return "", errors.New("secret: not a sealed secret")
	}
	plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("secret: sealed under another key")
	}
	return string(plain), nil
}
