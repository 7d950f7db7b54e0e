package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"crm/docs"
)

// openAPIDocument is docs/openapi.yaml as JSON, converted once, on first use, with the
// ETag of its bytes.
var openAPIDocument = sync.OnceValues(func() (openAPIJSON, error) {
	b, err := yamlToJSON(docs.OpenAPI)
	if err != nil {
		return openAPIJSON{}, err
	}
	sum := sha256.Sum256(b)
	return openAPIJSON{body: b, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
})

type openAPIJSON struct {
	body []byte
	etag string
}

// yamlToJSON converts the document from YAML to JSON. Its mapping keys must be strings
// (status codes are quoted: "200").
func yamlToJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("openapi: not expressible as JSON: %w", err)
	}
	return b, nil
}

// OpenAPI serves the API's OpenAPI 3.1 document at /v1/api/openapi.json. It changes
// only with the binary, so clients may keep it and revalidate with its ETag.
func (s *server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := openAPIDocument()
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("ETag", doc.etag)
	h.Set("Cache-Control", "public, max-age=3600")
	if strings.Contains(r.Header.Get("If-None-Match"), doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(doc.body)
}
