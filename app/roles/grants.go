package roles

import (
	"net/url"

	"crm/app/auth"
	"crm/app/validate"
)

// formGrants reads a matrix form: one p.<feature>.<action> field a cell, holding a record
// scope. A missing cell is none; an unknown scope refuses the form.
func formGrants(form url.Values) (map[auth.Feature]auth.Grant, error) {
	out := map[auth.Feature]auth.Grant{}
	for _, f := range auth.Features {
		var g auth.Grant
		for _, a := range auth.Actions {
			v := auth.RecordScope(form.Get("p." + string(f) + "." + string(a)))
			if v == "" {
				continue
			}
			if !auth.KnownScope(v) {
				return nil, validate.Errors{"permissions": validate.KeyInvalid}
			}
			g = g.With(a, v)
		}
		out[f] = g
	}
	return out, nil
}

// checkFeatures refuses a payload naming an unknown feature or scope.
func checkFeatures(p map[auth.Feature]auth.Grant) error {
	for f, g := range p {
		if !auth.KnownFeature(f) || !g.Valid() {
			return validate.Errors{"permissions": validate.KeyInvalid}
		}
	}
	return nil
}
