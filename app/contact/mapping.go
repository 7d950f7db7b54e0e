package contact

import (
	"net/http"
	"strconv"
	"strings"

	"crm/app/store"
	"crm/app/validate"
)

// The contact block (store.Contact) has one mapping to each outside form: its JSON is
// store.Contact's own (the API payloads embed it), its form fields are read by FromForm
// and written by FormValues, and its export columns are ExportColumns and ExportRecord.

// Fields are the contact block's plain form fields, by their form (and JSON) name.
var Fields = []string{"customer_title", "customer_name", "company_name", "company_type_id", "company_email",
	"company_dial_code", "company_phone_number", "owner_id", "notes"}

// Addresses are the form (and JSON) names of the contact block's addresses.
var Addresses = []string{"billing_address", "shipping_address"}

// AddressParts are the parts of a billing or shipping address, in form order.
var AddressParts = []string{"flatNo", "street", "city", "state", "zip", "country"}

// PostedValues reads the named plain fields and both addresses' parts ("billing_address.city")
// of a parsed form post, as typed.
func PostedValues(r *http.Request, fields []string) map[string]string {
	v := map[string]string{}
	for _, name := range fields {
		v[name] = r.PostFormValue(name)
	}
	for _, prefix := range Addresses {
		for _, part := range AddressParts {
			v[prefix+"."+part] = r.PostFormValue(prefix + "." + part)
		}
	}
	return v
}

// FormID is the optional id a form field holds: nil for none, and nil with a field error
// in errs for what is not a positive number.
func FormID(v map[string]string, errs validate.Errors, name string) *int64 {
	raw := strings.TrimSpace(v[name])
	if raw == "" {
		return nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n <= 0 {
		errs.Add(name, validate.KeyInvalid)
		return nil
	}
	return &n
}

// formAddress is the address a form's values give under prefix, nil when all its parts are blank.
func formAddress(v map[string]string, prefix string) *store.Address {
	a := store.Address{FlatNo: v[prefix+".flatNo"], Street: v[prefix+".street"], City: v[prefix+".city"],
		State: v[prefix+".state"], Zip: v[prefix+".zip"], Country: v[prefix+".country"]}
	if strings.TrimSpace(a.FlatNo+a.Street+a.City+a.State+a.Zip+a.Country) == "" {
		return nil
	}
	return &a
}

// FromForm is the contact block a form's values give; ids that are not numbers come back
// as field errors in errs.
func FromForm(v map[string]string, errs validate.Errors) store.Contact {
	return store.Contact{CustomerTitle: v["customer_title"], CustomerName: v["customer_name"],
		CompanyName: v["company_name"], CompanyEmail: v["company_email"], CompanyDialCode: v["company_dial_code"],
		CompanyPhoneNumber: v["company_phone_number"], CompanyTypeID: FormID(v, errs, "company_type_id"),
		OwnerID: FormID(v, errs, "owner_id"), BillingAddress: formAddress(v, "billing_address"),
		ShippingAddress: formAddress(v, "shipping_address"), Notes: v["notes"]}
}

// FormValues fills a form's values from a stored contact block: FromForm's reverse.
func FormValues(c store.Contact) map[string]string {
	v := map[string]string{"customer_title": c.CustomerTitle, "customer_name": c.CustomerName, "company_name": c.CompanyName,
		"company_type_id": IDText(c.CompanyTypeID), "company_email": c.CompanyEmail, "company_dial_code": c.CompanyDialCode,
		"company_phone_number": c.CompanyPhoneNumber, "owner_id": IDText(c.OwnerID), "notes": c.Notes}
	for i, a := range []*store.Address{c.BillingAddress, c.ShippingAddress} {
		if a == nil {
			continue
		}
		for j, val := range addressParts(a) {
			v[Addresses[i]+"."+AddressParts[j]] = val
		}
	}
	return v
}

// addressParts are an address's parts in AddressParts' order; blanks for no address.
func addressParts(a *store.Address) []string {
	if a == nil {
		return make([]string, len(AddressParts))
	}
	return []string{a.FlatNo, a.Street, a.City, a.State, a.Zip, a.Country}
}

// exportLead and exportTail are the contact block's export columns before and after a
// record's own (its masters, owner, creator and time).
var (
	exportLead = []string{"customer_title", "customer_name", "company_name", "company_email", "company_dial_code",
		"company_phone_number"}
	exportTail = func() []string {
		var out []string
		for _, prefix := range Addresses {
			for _, part := range AddressParts {
				out = append(out, prefix+"."+part)
			}
		}
		return append(out, "notes")
	}()
)

// ExportColumns are an export's columns after the id: the contact block's, with the
// record's own columns (middle) between its text fields and its addresses and notes.
func ExportColumns(middle ...string) []string {
	out := append(append([]string{}, exportLead...), middle...)
	return append(out, exportTail...)
}

// ExportRecord is an export's record, in ExportColumns' order after the id: the id, the
// contact block's cells and the record's own (middle). The cells are as stored; the
// export makes them safe for spreadsheet apps.
func ExportRecord(id int64, c *store.Contact, middle ...string) []string {
	rec := []string{strconv.FormatInt(id, 10), c.CustomerTitle, c.CustomerName, c.CompanyName, c.CompanyEmail,
		c.CompanyDialCode, c.CompanyPhoneNumber}
	rec = append(rec, middle...)
	rec = append(rec, addressParts(c.BillingAddress)...)
	rec = append(rec, addressParts(c.ShippingAddress)...)
	return append(rec, c.Notes)
}
