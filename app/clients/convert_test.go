package clients_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
)

// Converting a lead leaves nothing behind: the client shows the addresses it took, holds the
// lead's documents, shows the lead's reminders, and the lead is both won and converted.
func TestConvertCarriesAddressesDocumentsRemindersAndStatus(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		r := api.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{
			"customer_name": "Rosa Moved", "company_email": "rosa@example.com", "company_phone_number": "0123456789",
			"billing_address":  map[string]string{"flatNo": "12", "street": "Rua Augusta", "city": "Lisboa", "state": "Lisboa", "country": "Portugal"},
			"shipping_address": map[string]string{"flatNo": "3", "city": "Porto", "state": "Porto", "country": "Portugal"}})
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		id := int64(r.Env().Data["id"].(float64))
		lead := fmt.Sprintf("/leads/%d", id)
		b.UploadFiles(lead+"/documents", "contract", apptest.Upload{Name: "deal.pdf", Data: apptest.PDFBytes}).WantStatus(303)
		due := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
		api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": id, "title": "Send the invoice", "due_at": due}).WantStatus(201)

		client := clientLocation(t, b.Form(lead+"/convert", url.Values{}))
		page := b.Get(client).WantStatus(200)
		page.Has("12, Rua Augusta, Lisboa, Lisboa, Portugal", "3, Porto, Porto, Portugal", "deal.pdf",
			`data-testid="client-reminders"`, "Send the invoice")
		if n := strings.Count(page.Body, `data-testid="document"`); n != 1 {
			t.Errorf("client documents: %d", n)
		}
		if strings.Contains(b.Get(lead).Body, "deal.pdf") {
			t.Error("the document stayed on the lead")
		}
		docs := api.Get(fmt.Sprintf("/v1/api/lead/list-document/%d", id)).WantStatus(200).Env()
		if docs.Data["total"] != 0.0 {
			t.Errorf("lead documents after convert: %v", docs.Data)
		}
		d := api.Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)).WantStatus(200).Env().Data
		if d["lead_stage_name"] != "Won" || d["lead_status_name"] != "Converted" {
			t.Errorf("converted lead: stage %v, status %v", d["lead_stage_name"], d["lead_status_name"])
		}
	})
}
