// Package contract checks /v1/api answers against docs/openapi.yaml.
//
// It is a package of its own, apart from apptest, because it is dear to compile (the
// validator's generic types are instantiated here, about 11,000 functions) and apptest is
// compiled again for every area package whose test binary has tests of its own package: a
// package that imports no area is compiled once for them all.
package contract

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"crm/docs"
)

// The API tests check every /v1/api answer they receive against docs/openapi.yaml:
// apptest's Client.Send calls CheckAPIResponse.
//
// The validator is pb33f/libopenapi-validator, chosen over kin-openapi because it really
// validates OpenAPI 3.1: every schema of a 3.1 document goes to a JSON Schema 2020-12
// validator (santhosh-tekuri/jsonschema), compiled once and cached, and the document itself
// is checked against the official 3.1 schema. kin-openapi (v0.152) hands 3.1 schemas to the
// same 2020-12 validator only when they use a 3.1-only keyword; a schema with $refs and no
// such keyword falls back to its OpenAPI 3.0 validator, which for instance refuses the null
// of `enum: [a, null]`, and it compiles each schema again for every value it checks.
//
// It is pinned at v0.14.0: v0.15.2 and later depend on forks (github.com/pb33f/jsonschema,
// github.com/pb33f/go-yaml) that the module proxy does not serve here.

// Load gives the document, loaded and compiled once per test binary.
var Load = sync.OnceValues(func() (*Document, error) {
	doc, err := libopenapi.NewDocument(docs.OpenAPI)
	if err != nil {
		return nil, err
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	opts := []config.Option{config.WithFormatAssertions()}
	v := validator.NewValidatorFromV3Model(&model.Model, opts...)
	v.SetDocument(doc) // for ValidateDocument
	return &Document{Model: &model.Model, Validator: v, Schemas: schema_validation.NewSchemaValidator(opts...)}, nil
})

// Document is the loaded contract: its model and validators.
type Document struct {
	Model     *v3.Document
	Validator validator.Validator
	Schemas   schema_validation.SchemaValidator
}

// Schema is a schema of components/schemas.
func (c *Document) Schema(name string) *base.Schema {
	if p := c.Model.Components.Schemas.GetOrZero(name); p != nil {
		return p.Schema()
	}
	return nil
}

// CheckAPIResponse reports how an answer to a /v1/api request differs from what the
// document allows for that operation: its status, content type, documented headers and
// body. A path or method the document does not list must be refused, with 404 or 405 and
// the error envelope; answering it any other way is an undocumented operation.
func CheckAPIResponse(req *http.Request, res *http.Response, body []byte) error {
	if p := req.URL.Path; p != "/v1/api" && !strings.HasPrefix(p, "/v1/api/") {
		return nil
	}
	c, err := Load()
	if err != nil {
		return fmt.Errorf("docs/openapi.yaml does not load: %w", err)
	}
	if res.Header.Get("Content-Encoding") == "gzip" { // the test asked for it itself
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return err
		}
	}
	copied := *res
	copied.Body = io.NopCloser(bytes.NewReader(body))
	ok, verrs := c.Validator.ValidateHttpResponse(req, &copied)
	if ok {
		return nil
	}
	if undocumented(verrs) {
		// The document names no 405 answer (no operation gives one), so a 405 is checked as
		// the error envelope whose status is 405 and that has no field errors.
		status, envelope := http.StatusNotFound, "Error404"
		if verrs[0].ValidationSubType == helpers.ValidationMissingOperation {
			status, envelope = http.StatusMethodNotAllowed, "ErrorEnvelope"
		}
		if res.StatusCode == status && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			ok, serrs := c.Schemas.ValidateSchemaBytesWithVersion(c.Schema(envelope), body, 3.1)
			var env struct {
				Status int             `json:"status"`
				Errors json.RawMessage `json:"errors"`
			}
			if ok && json.Unmarshal(body, &env) == nil && env.Status == status && env.Errors == nil {
				return nil // refused, as it should be
			}
			if ok {
				return fmt.Errorf("%s %s: the %d envelope must repeat its status and have no field errors\nbody: %.600s", req.Method, req.URL.Path, status, body)
			}
			verrs = serrs
		}
		return fmt.Errorf("%s %s is not in the document, so it must be refused with %d and the error envelope:\n%s\nbody: %.600s",
			req.Method, req.URL.Path, status, Describe(verrs), body)
	}
	return fmt.Errorf("%s\nbody: %.600s", Describe(verrs), body)
}

func undocumented(errs []*liberrors.ValidationError) bool {
	return len(errs) == 1 && errs[0].ValidationType == helpers.PathValidation &&
		(errs[0].ValidationSubType == helpers.ValidationMissing || errs[0].ValidationSubType == helpers.ValidationMissingOperation)
}

// Describe lists the validator's findings, one per line, with the failing field.
func Describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "- %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n    %s", f.Reason)
			if f.FieldPath != "" {
				fmt.Fprintf(&b, " at %s", f.FieldPath)
			}
			if f.KeywordLocation != "" {
				fmt.Fprintf(&b, " (schema %s)", f.KeywordLocation)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// APIOperations lists the document's operations as "METHOD /v1/api/path".
func APIOperations(t *testing.T, c *Document) []string {
	t.Helper()
	if len(c.Model.Servers) != 1 || c.Model.Servers[0].URL != "/v1/api" {
		t.Fatalf("servers: want the one relative server /v1/api")
	}
	var ops []string
	for path, item := range c.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			ops = append(ops, strings.ToUpper(method)+" /v1/api"+path)
		}
	}
	sort.Strings(ops)
	return ops
}
