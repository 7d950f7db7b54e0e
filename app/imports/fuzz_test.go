package imports

import (
	"testing"

	"crm/app/web/webtest"
)

// FuzzRunPayload: the mapping an import runs with.
func FuzzRunPayload(f *testing.F) {
	for _, s := range []string{`{"mapping":["customer_name","","company_email"],"mode":"create","match_key":"email"}`,
		`{"mapping":["\u0000"]}`, `{"mode":"\u0007"}`, `{"mapping":"x"}`, `{"mapping":[null]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		webtest.DecodeJSON[runPayload](t, body)
	})
}
