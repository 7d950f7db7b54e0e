// Package docs embeds the API's OpenAPI 3.1 document, docs/openapi.yaml, so the binary can
// serve it (as JSON, at /v1/api/openapi.json) and the API tests can check every response
// against it.
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml, the OpenAPI 3.1 description of everything under /v1/api.
//
//go:embed openapi.yaml
var OpenAPI []byte
