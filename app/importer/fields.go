package importer

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
)

// Fields are the fields a column of an import of the entity can fill, in form order, by
// the names the store's validation and the JSON API use (masters and owner by name); an
// entity that is not importable gets the lead's.
func Fields(entity string) []string {
	if f := store.ImportFields(entity); f != nil {
		return f
	}
	return store.LeadImportFields
}

// LabelID is the message id of a field's label ("billing_address.city" →
// "imports.field.billing_address_city"), also the export's column heading.
func LabelID(field string) string {
	return "imports.field." + strings.ReplaceAll(field, ".", "_")
}

// Feature is the permission area of an entity (the leads' for an unknown one).
func Feature(entity string) auth.Feature {
	if e := store.EntityNamed(entity); e != nil {
		return e.Feature
	}
	return auth.FeatureLeads
}

// Required are the fields a create must have a column for.
var Required = []string{"customer_name", "company_email"}

// KeyField is the field a match key compares.
func KeyField(matchKey string) string { return store.MatchField(matchKey) }

// normalise reduces a header to its lowercase letters and digits: "E-mail" and
// "company_email" become "email" and "companyemail".
func normalise(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// synonyms are header names (normalised) that mean a field.
var synonyms = func() map[string]string {
	m := map[string]string{}
	add := func(field string, names ...string) {
		for _, n := range names {
			m[normalise(n)] = field
		}
	}
	add("customer_title", "title", "salutation", "courtesy title", "customer title", "personal title", "prefix", "name prefix")
	add("customer_name", "name", "customer name", "customer", "contact", "contact name", "contact person", "full name",
		"lead name", "person", "client name")
	add("company_name", "company", "company name", "organisation", "organization", "org", "account", "account name",
		"business", "business name", "firm")
	add("company_email", "email", "e-mail", "email address", "e-mail address", "mail", "company_email", "company email",
		"email id", "contact email", "work email", "business email")
	add("company_dial_code", "dial code", "country code", "phone code", "company_dial_code", "calling code", "isd", "isd code")
	add("company_phone_number", "phone", "phone number", "telephone", "tel", "mobile", "mobile number", "mobile no",
		"phone no", "cell", "cell phone", "company phone", "company_phone_number", "contact number", "contact no")
	add("company_type_id", "company type", "business type", "company_type_id", "company type name")
	add("lead_type_id", "type", "lead type", "lead_type_id", "temperature")
	add("lead_source_id", "source", "lead source", "lead_source_id", "channel", "origin")
	add("lead_status_id", "status", "lead status", "lead_status_id")
	add("lead_stage_id", "stage", "lead stage", "lead_stage_id", "pipeline stage", "deal stage")
	add("owner_id", "owner", "owner email", "owner name", "owner_id", "assigned to", "assignee", "sales rep",
		"account owner", "lead owner")
	add("notes", "notes", "note", "comments", "comment", "description", "remarks")
	add("created_at", "created at", "created", "created date", "created on", "date created", "creation date", "createdAt")
	// Address parts without a billing or shipping prefix are the billing address.
	add("billing_address.flatNo", "address line 1", "address1", "flat no", "door no", "flat/door no", "house no")
	add("billing_address.street", "address", "street", "street address", "address line 2", "address2")
	add("billing_address.city", "city", "town")
	add("billing_address.state", "state", "province", "region", "county")
	add("billing_address.zip", "zip", "zip code", "zipcode", "postcode", "postal code", "pin", "pin code")
	add("billing_address.country", "country")
	return m
}()

// addressParts are the names of an address part after a billing or shipping prefix.
var addressParts = func() map[string]string {
	m := map[string]string{}
	add := func(part string, names ...string) {
		for _, n := range names {
			m[normalise(n)] = part
		}
	}
	add("flatNo", "flatNo", "flat", "flat no", "door", "door no", "flat/door no", "house", "house no", "house number",
		"address line 1", "address1", "line 1", "line1", "building", "unit", "apartment")
	add("street", "street", "street address", "address", "address line 2", "address2", "line 2", "road")
	add("city", "city", "town")
	add("state", "state", "province", "region", "county")
	add("zip", "zip", "zip code", "postcode", "postal code", "pin", "pin code")
	add("country", "country", "country name")
	return m
}()

var addressPrefixes = []struct{ prefix, field string }{
	{"billingaddress", "billing_address"}, {"billing", "billing_address"}, {"bill", "billing_address"},
	{"shippingaddress", "shipping_address"}, {"shipping", "shipping_address"}, {"ship", "shipping_address"},
	{"deliveryaddress", "shipping_address"}, {"delivery", "shipping_address"},
}

// guess is the field a header names, or "".
func guess(header string, labels map[string]string) string {
	n := normalise(header)
	if n == "" {
		return ""
	}
	if f, ok := synonyms[n]; ok {
		return f
	}
	for _, p := range addressPrefixes {
		if rest, ok := strings.CutPrefix(n, p.prefix); ok && rest != "" {
			if part, ok := addressParts[rest]; ok {
				return p.field + "." + part
			}
		}
	}
	return labels[n]
}

// Suggest maps each column of the header to a field of the entity, by the header's name:
// known synonyms ("E-mail", "company_email" → company_email), an address part with a
// billing or shipping prefix, or a field's label in the user's language (labels: field →
// label), which is also how a file exported here comes back. A field goes to the first
// column that names it; other columns stay unmapped ("").
func Suggest(entity string, header []string, labels map[string]string) []string {
	fields := Fields(entity)
	byLabel := map[string]string{}
	for f, l := range labels {
		byLabel[normalise(l)] = f
	}
	out := make([]string, len(header))
	used := map[string]bool{}
	for i, h := range header {
		f := guess(h, byLabel)
		if f == "" || used[f] || !slices.Contains(fields, f) {
			continue
		}
		out[i], used[f] = f, true
	}
	return out
}

// CheckMapping checks a mapping (one field or "" per column), a mode and a match key for
// an import of the entity. Errors: mapping (wrong length), mapping.<column> (invalid: not a
// field; taken: another column has it), field.<name> (required: a create needs it),
// mode, match_key (invalid; required: the key's column is not mapped but the mode matches).
func CheckMapping(entity string, width int, mapping []string, mode, matchKey string) validate.Errors {
	errs := validate.Errors{}
	if len(mapping) != width {
		errs.Add("mapping", validate.KeyInvalid)
		return errs
	}
	fields := Fields(entity)
	used := map[string]bool{}
	for i, f := range mapping {
		if f == "" {
			continue
		}
		col := "mapping." + strconv.Itoa(i)
		switch {
		case !slices.Contains(fields, f):
			errs.Add(col, validate.KeyInvalid)
		case used[f]:
			errs.Add(col, validate.KeyTaken)
		}
		used[f] = true
	}
	switch mode {
	case store.ModeCreate, store.ModeUpdate, store.ModeUpsert:
	default:
		errs.Add("mode", validate.KeyInvalid)
	}
	switch matchKey {
	case store.MatchEmail, store.MatchPhone:
		if mode != store.ModeCreate && !used[KeyField(matchKey)] {
			errs.Add("match_key", validate.KeyRequired)
		}
	default:
		errs.Add("match_key", validate.KeyInvalid)
	}
	if mode == store.ModeCreate || mode == store.ModeUpsert {
		for _, f := range Required {
			if !used[f] {
				errs.Add("field."+f, validate.KeyRequired)
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}
