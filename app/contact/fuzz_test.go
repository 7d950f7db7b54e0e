package contact

import (
	"testing"

	"crm/app/validate"
	"crm/app/web/webtest"
)

var formFields = []string{"customer_title", "customer_name", "company_name", "company_type_id", "company_email",
	"company_dial_code", "company_phone_number", "owner_id", "notes"}

// FuzzContactForm: the form reader and the contact block of the lead and client forms:
// any posted form is read or refused with a client error, and ids that are not numbers are
// field errors, never a panic.
func FuzzContactForm(f *testing.F) {
	for _, s := range []string{"customer_name=Ann&company_email=a%40b.c&company_phone_number=0123456789&notes=a%0D%0Ab",
		"company_type_id=x", "owner_id=99999999999999999999", "billing_address.city=%00", "customer_name=%FF",
		"shipping_address.zip=1&shipping_address.country=DE", "notes=%07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r, ok := webtest.ReadForm(t, body)
		if !ok {
			return
		}
		errs := validate.Errors{}
		c := FromForm(PostedValues(r, formFields), errs)
		for _, s := range []string{c.CustomerName, c.CompanyName, c.CompanyEmail, c.CustomerTitle} {
			if !validate.Text(s, false) {
				t.Fatalf("%q accepted %q", body, s)
			}
		}
	})
}
