package leads_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"crm/app/apptest"
)

// Search ignores accents both ways, in the lead list (API and page) and the client list.
func TestSearchIgnoresAccents(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		garcia := apptest.NewLead(t, api, "José García")
		dvorak := apptest.NewLead(t, api, "Dvorak")
		apptest.NewLead(t, api, "Someone Else")
		for term, want := range map[string][]int64{"garcia": {garcia}, "GARCÍA": {garcia}, "jose garc": {garcia},
			"dvořák": {dvorak}, "jo": {garcia}} {
			if got := listPage(t, api, "search="+url.QueryEscape(term)).ids(); !slices.Equal(got, want) {
				t.Errorf("lead API search %q: got %v, want %v", term, got, want)
			}
		}
		b.Get("/leads?search=garcia").WantStatus(200).Has(fmt.Sprintf(`href="/leads/%d"`, garcia)).
			Lacks(fmt.Sprintf(`href="/leads/%d"`, dvorak))

		b.Form(fmt.Sprintf("/leads/%d/convert", garcia), url.Values{}).WantStatus(303)
		b.Get("/clients?search=garcia").WantStatus(200).Has("José García").Lacks(`data-testid="clients-empty"`)
		b.Get("/clients?search=gárcíá").WantStatus(200).Has("José García")
	})
}
