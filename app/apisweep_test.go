package app_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/apptest/contract"
)

// TestMalformedInputSweep sends malformed input to every operation of docs/openapi.yaml as
// a signed-in administrator (sign-in itself anonymously): each string field and query
// parameter with NUL, other control characters and huge text, each field with the wrong
// type, bad ids in the path, truncated JSON, and the wrong content type. Nothing may answer
// 5xx, and every answer must still be one the document allows (Client.Send checks it).
func TestMalformedInputSweep(t *testing.T) {
	doc, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Sweep Co")
		admin := e.APIClient(f.Admin.Email)
		// Records for the ids of the paths (every table starts at 1 in a fresh database).
		lead := apptest.NewLead(t, admin, "Sweep Lead")
		admin.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "Sweep Client", "company_email": "sweep@client.test", "company_phone_number": "0123456789"})
		admin.UploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", lead), "", apptest.Upload{Name: "a.txt", Data: []byte("hello")})
		admin.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Call", "due_at": "2030-01-02T10:00:00Z"})

		huge := strings.Repeat("x", 70_000)
		badText := []string{"a\x00b", "\x01\x02\x1b[31m\x7f", "a\u0085b", huge}
		badIDs := []string{"0", "-1", "abc", "99999999999999999999", "1.5", "%00", "%FF"}
		sent := 0
		for _, item := range doc.Paths {
			path := item.Path
			for _, op := range item.Operations {
				method := op.Method
				if path == "/auth/logout" {
					continue // would end the sweep's own session
				}
				c := admin
				if path == "/auth/login" {
					c = e.Client()
				}
				send := func(p string, body []byte, ctype string) {
					t.Helper()
					req, err := http.NewRequest(method, e.Srv.URL+"/v1/api"+p, bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					if ctype != "" {
						req.Header.Set("Content-Type", ctype)
					}
					sent++
					if r := c.Send(req); r.Status >= 500 {
						t.Errorf("%s %s (%s, %.80q): %d %.300s", method, p, ctype, body, r.Status, r.Body)
					}
				}
				params := op.Params
				withID := func(id string) string {
					p := path
					for _, prm := range params {
						if prm.In == "path" {
							p = strings.ReplaceAll(p, "{"+prm.Name+"}", id)
						}
					}
					return p
				}
				good := withID("1")
				// Bad ids in the path.
				if good != path || strings.Contains(path, "{") {
					for _, id := range badIDs {
						send(withID(id), nil, "")
					}
				}
				// Every query parameter: control characters, huge text, the wrong type.
				for _, prm := range params {
					if prm.In != "query" {
						continue
					}
					for _, v := range slices.Concat(badText, []string{"abc", "-1", "[1,x]", "99999999999999999999", "9223372036854775807"}) {
						send(good+"?"+url.Values{prm.Name: {v}}.Encode(), nil, "")
					}
					send(good+"?"+prm.Name+"=%FF%FE", nil, "")
				}
				if s, ok := op.RequestBody["application/json"]; ok {
					props := doc.Properties(s)
					for name, s := range props {
						for _, v := range slices.Concat(anyOf(badText), wrongTypes(s)) {
							body, _ := jsonObject(name, v)
							send(good, body, "application/json")
						}
						// One level down (addresses): the same text in a nested field.
						for sub := range doc.Properties(s) {
							body, _ := jsonObject(name, map[string]any{sub: "a\x00b"})
							send(good, body, "application/json")
						}
					}
					for _, raw := range []string{"", `{"name": "ab`, `{`, `[]`, `null`, `"x"`, `{"a":1}{"b":2}`, `{"` + "\x00" + `":1}`, "\xff\xfe"} {
						send(good, []byte(raw), "application/json")
					}
					send(good, []byte(`{"name":"x"}`), "text/plain")
					send(good, []byte("name=a%00b"), "application/x-www-form-urlencoded")
				}
				if s, ok := op.RequestBody["multipart/form-data"]; ok {
					for name := range doc.Properties(s) {
						for _, v := range badText {
							var buf bytes.Buffer
							mw := multipart.NewWriter(&buf)
							_ = mw.WriteField(name, v)
							fw, _ := mw.CreateFormFile("file", "a\x00b.csv")
							_, _ = fw.Write([]byte("customer_name\nx\n"))
							_ = mw.Close()
							send(good, buf.Bytes(), mw.FormDataContentType())
						}
					}
					send(good, []byte(`{"name":"x"}`), "application/json")
					send(good, []byte("--x\r\nbroken"), "multipart/form-data; boundary=x")
				}
			}
		}
		t.Logf("%d malformed requests", sent)
	})
}

func anyOf(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// jsonObject is {name: v} as JSON, with Go's escaping of control characters.
func jsonObject(name string, v any) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{%q:", name)
	switch x := v.(type) {
	case string:
		fmt.Fprintf(&b, "%s", quoteJSON(x))
	case map[string]any:
		for k, s := range x {
			fmt.Fprintf(&b, "{%q:%s}", k, quoteJSON(s.(string)))
		}
	default:
		fmt.Fprintf(&b, "%s", x)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// quoteJSON writes s as a JSON string, control characters escaped as \u00XX.
func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rawJSON is JSON text sent as is.
type rawJSON string

func (r rawJSON) String() string { return string(r) }

// wrongTypes are values of the wrong JSON type for a schema.
func wrongTypes(s contract.Schema) []any {
	types := s.Types()
	out := []any{rawJSON(`{"x":1}`), rawJSON(`[1,"a"]`), rawJSON("true")}
	if !slices.Contains(types, "string") {
		out = append(out, rawJSON(`"text"`))
	}
	if !slices.Contains(types, "integer") && !slices.Contains(types, "number") {
		out = append(out, rawJSON("-1"), rawJSON("1e400"), rawJSON("99999999999999999999"))
	} else {
		out = append(out, rawJSON("-1"), rawJSON("0"), rawJSON("1.5"), rawJSON("99999999999999999999"))
	}
	return out
}
