package leads_test

import (
	"net/url"
	"testing"

	"crm/app/apptest"
)

// The pipeline board says how old each lead is with the language's plural forms, and a lead
// created today is "today", not "0 jour".
func TestBoardAgeIsTodayNotZeroDays(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b := e.Browser(f.Admin.Email)
		apptest.NewLead(t, e.APIClient(f.Admin.Email), "Fresh Lead")
		b.Form("/language", url.Values{"locale": {"fr_FR"}}).WantStatus(303)
		b.Get("/leads/board").WantStatus(200).Has("Fresh Lead", "aujourd&#39;hui").Lacks("0 jour")
		b.Form("/language", url.Values{"locale": {"cs_CZ"}}).WantStatus(303)
		b.Get("/leads/board").WantStatus(200).Has("dnes").Lacks("0 dní", "0 den")
	})
}
