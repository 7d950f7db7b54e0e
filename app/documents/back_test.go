package documents_test

import (
	"fmt"
	"net/url"
	"regexp"
	"testing"
	"time"

	"crm/app/apptest"
)

// The document and reminder edit pages link back to their lead or client, not only by Cancel.
func TestEditPagesLinkBackToTheirRecord(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := apptest.NewLead(t, api, "Back Link")
		lead := fmt.Sprintf("/leads/%d", id)
		b.UploadFiles(lead+"/documents", "", apptest.Upload{Name: "a.pdf", Data: apptest.PDFBytes}).WantStatus(303)
		due := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
		api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": id, "title": "Call", "due_at": due}).WantStatus(201)
		page := b.Get(lead).WantStatus(200)
		doc := regexp.MustCompile(`/leads/\d+/documents/\d+/edit`).FindString(page.Body)
		rem := regexp.MustCompile(`/reminders/\d+/edit`).FindString(page.Body)
		if doc == "" || rem == "" {
			t.Fatalf("no edit links: %q %q", doc, rem)
		}
		back := `data-testid="record-back"><a href="` + lead + `#`
		b.Get(doc).WantStatus(200).Has(back, "Back to the lead")
		b.Get(rem).WantStatus(200).Has(back, "Back to the lead")

		client := b.Form(lead+"/convert", url.Values{}).WantStatus(303).Location()
		b.UploadFiles(client+"/documents", "", apptest.Upload{Name: "b.pdf", Data: apptest.PDFBytes}).WantStatus(303)
		cdoc := regexp.MustCompile(`/clients/\d+/documents/\d+/edit`).FindString(b.Get(client).Body)
		if cdoc == "" {
			t.Fatal("no client document edit link")
		}
		b.Get(cdoc).WantStatus(200).Has(`data-testid="record-back"><a href="`+client+`#`, "Back to the client")
	})
}
