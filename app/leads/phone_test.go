package leads_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"crm/app/apptest"
)

// A phone number typed with its usual formatting is accepted and stored as digits, by the
// form and the API alike; the form's input does not hold a pattern the browser would refuse
// it with, and a number with too few digits gets the field's own error.
func TestLeadPhoneFormattingIsAccepted(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b := e.Browser(f.Admin.Email)
		api := e.APIClient(f.Admin.Email)

		form := b.Get("/leads/new").WantStatus(200)
		i := strings.Index(form.Body, `name="company_phone_number"`)
		tag := form.Body[strings.LastIndex(form.Body[:i], "<"):]
		tag = tag[:strings.Index(tag, ">")]
		if strings.Contains(tag, "pattern=") || !strings.Contains(tag, `type="tel"`) {
			t.Fatalf("phone input: %s", tag)
		}

		in := leadForm("Ana Phone", "ana.phone@example.com")
		in.Set("company_phone_number", "(202) 555-0147")
		id := createdID(t, b.Form("/leads/new", in))
		b.Get(fmt.Sprintf("/leads/%d", id)).Has("+91 2025550147")

		bad := leadForm("Ana Short", "ana.short@example.com")
		bad.Set("company_phone_number", "(202) 555-01")
		b.Form("/leads/new", bad).WantStatus(http.StatusUnprocessableEntity).
			WantInlineError("f-company-phone-number", "Enter 10 to 15 digits.")

		for typed, want := range map[string]string{"+1 202.555.0148": "12025550148", " 202 555 0149 ": "2025550149", "202/555-0150": "2025550150"} {
			r := api.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{
				"customer_name": "Api " + want, "company_email": want + "@example.com", "company_phone_number": typed})
			if r.Status != 201 || r.Env().Data["company_phone_number"] != want {
				t.Errorf("API %q: %d %s", typed, r.Status, r.Body)
			}
		}
		r := api.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{
			"customer_name": "Api bad", "company_email": "bad@example.com", "company_phone_number": "202-555-01x7"})
		if r.Status != 422 || r.Env().Errors["company_phone_number"] != "invalidPhone" {
			t.Errorf("API letters: %d %s", r.Status, r.Body)
		}
	})
}
