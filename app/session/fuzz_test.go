package session

import (
	"testing"

	"crm/app/web/webtest"
)

// FuzzLoginRequest: the sign-in body, the one payload read before the caller is known.
func FuzzLoginRequest(f *testing.F) {
	for _, s := range []string{`{"email":"a@example.com","password":"Secret1!x"}`, `{"email":"a\u0000b@example.com","password":"x"}`,
		`{"email":1}`, `{"password":"\u0000"}`, `{"email":"a@b.c","password":"x","extra":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		webtest.DecodeJSON[loginRequest](t, body)
	})
}
