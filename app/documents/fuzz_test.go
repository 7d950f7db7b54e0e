package documents

import (
	"testing"

	"crm/app/web/webtest"
)

// FuzzDocumentPayload: a document's rename and retag payload.
func FuzzDocumentPayload(f *testing.F) {
	for _, s := range []string{`{"name":"a.pdf","tag":"offer"}`, `{"name":"a\u0000.pdf"}`, `{"tag":"\t"}`, `{"name":5}`, `{"name":"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		webtest.DecodeJSON[documentPayload](t, body)
	})
}
