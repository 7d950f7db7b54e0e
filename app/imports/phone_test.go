package imports_test

import (
	"testing"

	"crm/app/apptest"
	"crm/app/store"
)

// An import stores phone numbers the way the forms and the API do: formatting dropped.
func TestImportNormalisesFormattedPhones(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		im := runCSV(t, c, store.EntityLead, "Customer name,Email,Phone\nAna,ana@x.test,(202) 555-0147\nBen,ben@x.test,+44 20.7946.0958\n", "create", "email")
		wantCounts(t, im, 2, 0, 0, 0)
		for email, want := range map[string]string{"ana@x.test": "2025550147", "ben@x.test": "442079460958"} {
			if got := leadByEmail(t, e, f, email); len(got) != 1 || got[0].CompanyPhoneNumber != want {
				t.Errorf("%s: %+v", email, got)
			}
		}
	})
}
