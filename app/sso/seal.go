// Package sso signs users in with their tenant's OpenID Connect provider (authorization
// code with PKCE, github.com/coreos/go-oidc and golang.org/x/oauth2), so Google, Microsoft
// Entra or Keycloak all work; the spec's path is /auth/google. A tenant configures its
// provider on /settings/sso; its client secret is sealed with AES-GCM under the server's key.
package sso

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

// NewSealer is the sealer of key; nil when key is empty (SSO then cannot be configured).
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
		return "", errors.New("sso: not a sealed secret")
	}
	plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("sso: secret sealed under another key")
	}
	return string(plain), nil
}
