package leads

import (
	"testing"

	"crm/app/web/webtest"
)

// FuzzLeadPayloads feeds the JSON decoder every lead payload: create and update, the
// stage/status/owner change, the bulk change and a saved view. Nothing may panic or be a
// server error; what is accepted is clean and converts to the store's input.
func FuzzLeadPayloads(f *testing.F) {
	for _, s := range []string{
		`{"customer_name":"Ann","company_email":"ann@example.com","company_phone_number":"0123456789","notes":"a\nb"}`,
		`{"customer_name":"a\u0000b"}`, `{"client_id":"\u0007"}`, `{"billing_address":{"city":"\u0000"}}`,
		`{"lead_stage_id":"x"}`, `{"createdAt":"yesterday"}`, `{"tenant_id":{"a":"\u0000"}}`, `{"ids":[1,-2],"owner_id":3}`,
		`{"name":"Mine","query":"search=a"}`, `{"name":"ab`, `null`, `[]`, "\xff\xfe", `{"company_logo":"data:image/png;base64,@@"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if p, ok := webtest.DecodeJSON[leadPayload](t, body); ok {
			_ = p.input()
		}
		webtest.DecodeJSON[fieldChange](t, body)
		webtest.DecodeJSON[bulkChange](t, body)
		webtest.DecodeJSON[savedViewPayload](t, body)
	})
}

// FuzzLeadQuery: the lead list's one query parser (page, API, export) takes any query
// string without panicking, and the values it keeps of a valid query read back to the same query.
func FuzzLeadQuery(f *testing.F) {
	for _, s := range []string{"search=acme&sort=company_name&order=asc&limit=50", "stage_id=[1,2]&owner_id=3,4",
		"stage_id=x", "from=2026-01-01&to=2025-01-01", "from=2026-02-30", "after=bogus", "sort=nope", "limit=-1",
		"search=%00", "type_id=99999999999999999999", "status_id=&status_id=[]", "order=DESC"} {
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
