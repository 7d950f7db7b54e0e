package clients

import (
	"testing"

	"crm/app/web/webtest"
)

// FuzzClientPayloads feeds the JSON decoder the client create/update payload and the
// bulk owner change.
func FuzzClientPayloads(f *testing.F) {
	for _, s := range []string{
		`{"customer_name":"Ann","company_email":"ann@example.com","company_phone_number":"0123456789","notes":"a\r\nb"}`,
		`{"customer_name":"a\u0000b"}`, `{"shipping_address":{"zip":"\u001b"}}`, `{"company_type_id":"1"}`,
		`{"ids":[1,2],"owner_id":3}`, `{"ids":"1"}`, `{"customer_name":"ab`, `null`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if p, ok := webtest.DecodeJSON[clientPayload](t, body); ok {
			_ = p.input()
		}
		webtest.DecodeJSON[clientBulkChange](t, body)
	})
}

// FuzzClientQuery: the client list's one query parser takes any query string, and the
// values it keeps read back to the same query.
func FuzzClientQuery(f *testing.F) {
	for _, s := range []string{"search=acme&sort=name&order=desc&limit=20", "owner_id=[1,2]", "converted=yes",
		"converted=maybe", "from=2026-13-01", "after=x&before=y", "sort=%00", "limit=1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		in, ok := webtest.Query(raw)
		if !ok {
			return
		}
		q, norm, errs := Query(in)
		if len(errs) != 0 {
			return // refused (422); the form shows the values as sent
		}
		q2, norm2, errs2 := Query(norm)
		if len(errs2) != 0 || norm2.Encode() != norm.Encode() || q2.Search != q.Search || q2.Sort != q.Sort || q2.Order != q.Order {
			t.Fatalf("%q: kept %q, which reads back as %q (%v)", raw, norm.Encode(), norm2.Encode(), errs2)
		}
	})
}
