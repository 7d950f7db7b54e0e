package web

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"testing"
	"time"

	"crm/app/store"
	"crm/app/validate"
)

// fill sets every exported field reachable from v (pointers allocated, one element in
// slices and maps) to a value that tests an encoder: text with HTML, a line separator,
// an accent and invalid UTF-8; a negative number; a time with a zone and nanoseconds.
// Types with a MarshalJSON method keep it in play, so their fields are filled too.
func fill(v reflect.Value, depth int) {
	if depth > 6 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("<b>Müller & Söhne</b>\u2028\xff\"q\"")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-42)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(42)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1234.5678e-3)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 28, 17, 4, 5, 123456789, time.FixedZone("IST", 5*3600+1800))))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

// The API's encoder must write what encoding/json writes: clients and docs/openapi.yaml
// were made against that, and a faster encoder is no reason for any byte to change.
func TestEncodeJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	type leadJSON struct { // as app/leads answers a lead: the store's view embedded by pointer
		*store.LeadView
		CreatedAtCamel time.Time `json:"createdAt"`
		LogoURL        string    `json:"logo_url"`
	}
	var full store.LeadView
	fill(reflect.ValueOf(&full).Elem(), 0)
	var bucket store.Bucket
	fill(reflect.ValueOf(&bucket).Elem(), 0)
	next := "cursor"
	values := map[string]any{
		"list of leads": Envelope{Status: 200, Message: "ok", Data: List[leadJSON]{
			Result: []leadJSON{{LeadView: &full, LogoURL: "/v1/api/lead/logo/1"}, {LeadView: &store.LeadView{}}},
			Total:  10001, Page: 1, Limit: 20}},
		"no rows":          Envelope{Status: 200, Message: "ok", Data: List[leadJSON]{Result: []leadJSON{}}},
		"nil embedded":     Envelope{Data: leadJSON{}},
		"field errors":     Envelope{Status: 422, Message: "<invalid>", Errors: validate.Errors{"email": "invalidEmail", "phone": "required"}},
		"no data":          Envelope{Status: 404, Message: "Not found"},
		"MarshalJSON":      Envelope{Data: map[string]any{"series": []store.Bucket{bucket}, "period": store.Period{}}},
		"maps and cursors": Envelope{Data: map[string]any{"z": 1, "a": []any{nil, 1.5, "x", true}, "next": &next, "raw": stdjson.RawMessage(`{"k":[1,2]}`)}},
	}
	for name, v := range values {
		want, wantErr := stdjson.Marshal(v)
		got, err := encodeJSON(v)
		if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Errorf("%s:\nencoding/json: %s (%v)\nencodeJSON:    %s (%v)", name, want, wantErr, got, err)
		}
	}
}
