package campaigns_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

// lead adds a lead to the tenant through the store.
func lead(t *testing.T, s store.Scope, name, email string) *store.LeadView {
	t.Helper()
	l, _, err := s.CreateLead(context.Background(), store.LeadInput{Contact: store.Contact{CustomerName: name, CompanyName: name + " Ltd", CompanyEmail: email}}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// waitSend waits until the send has finished (it runs in the background).
func waitSend(t *testing.T, s store.Scope, id int64) *store.EmailSend {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		send, err := s.EmailSend(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if send.Finished() {
			return send
		}
		if time.Now().After(deadline) {
			t.Fatalf("send %d not finished: %+v", id, send)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTemplateAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db)
		a, b := e.Tenant("Acme"), e.Tenant("Other")
		api := e.APIClient(a.Admin.Email)
		l := lead(t, e.Scope(a), "Ann", "ann@example.test")

		r := api.Do("POST", "/v1/api/create-template-master", map[string]any{"name": "Welcome", "subject": "Hi {{customer_name}}",
			"body":     "Dear {{customer_name}} of {{company_name}}\n\n<script>alert(1)</script><img src=x onerror=alert(2)>",
			"variants": []map[string]string{{"locale": "de_DE", "subject": "Hallo {{customer_name}}", "body": "Hallo"}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		id := int64(r.Env().Data["id"].(float64))
		if vs := r.Env().Data["variants"].([]any); len(vs) != 1 {
			t.Fatalf("variants %v", vs)
		}
		// Validation: an unknown merge field, CR/LF in the subject, a taken name.
		for _, c := range []struct {
			body  map[string]any
			field string
			key   string
		}{
			{map[string]any{"name": "X", "subject": "Hi {{password_hash}}", "body": "b"}, "subject", "unknownMergeField"},
			{map[string]any{"name": "X", "subject": "Hi", "body": "{{customer_name}} {{ssn}}"}, "body", "unknownMergeField"},
			{map[string]any{"name": "X", "subject": "Hi\r\nBcc: x@evil.test", "body": "b"}, "subject", "invalidCharacters"},
			{map[string]any{"name": "Welcome", "subject": "Hi", "body": "b"}, "name", "taken"},
			{map[string]any{"name": "X", "subject": "Hi", "body": "b", "variants": []map[string]string{{"locale": "fr_FR", "subject": "{{nope}}", "body": "b"}}}, "subject_fr_FR", "unknownMergeField"},
		} {
			r := api.Do("POST", "/v1/api/create-template-master", c.body)
			if r.Status != http.StatusUnprocessableEntity || r.Env().Errors[c.field] != c.key {
				t.Errorf("%v: %d %s", c.body, r.Status, r.Body)
			}
		}
		// Preview: the record's values, the script gone.
		r = api.Do("POST", "/v1/api/preview-template-master", map[string]any{"name": "P", "subject": "Hi {{customer_name}}",
			"body": "Dear **{{customer_name}}**<script>alert(1)</script>", "entity": "lead", "record_id": l.ID})
		html, _ := r.Env().Data["html"].(string)
		if r.Status != http.StatusOK || r.Env().Data["subject"] != "Hi Ann" || !strings.Contains(html, "<strong>Ann</strong>") || strings.Contains(html, "script") {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		rendered, err := e.Scope(a).RenderTemplate(context.Background(), id, store.LeadTarget(l.ID))
		if err != nil || strings.Contains(rendered.HTML, "script") || strings.Contains(rendered.HTML, "onerror") || !strings.Contains(rendered.HTML, "Ann Ltd") {
			t.Fatalf("rendered %+v %v", rendered, err)
		}
		// Update, list, dropdown.
		r = api.Do("PUT", "/v1/api/update-template-master/"+strconv.FormatInt(id, 10), map[string]any{"name": "Welcome 2", "subject": "Hello", "body": "B"})
		if r.Status != http.StatusOK || r.Env().Data["name"] != "Welcome 2" || len(r.Env().Data["variants"].([]any)) != 0 {
			t.Fatalf("update: %d %s", r.Status, r.Body)
		}
		if r = api.Get("/v1/api/list-template-master"); r.Status != http.StatusOK || !strings.Contains(r.Body, "Welcome 2") {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		if r = api.Get("/v1/api/dropdown-template-master"); r.Status != http.StatusOK || !strings.Contains(r.Body, "Welcome 2") {
			t.Fatalf("dropdown: %d %s", r.Status, r.Body)
		}
		// Another tenant: not found, and its preview cannot reach our lead.
		other := e.APIClient(b.Admin.Email)
		if r = other.Get("/v1/api/view-template-master/" + strconv.FormatInt(id, 10)); r.Status != http.StatusNotFound {
			t.Fatalf("other tenant's view: %d", r.Status)
		}
		r = other.Do("POST", "/v1/api/preview-template-master", map[string]any{"name": "P", "subject": "Hi", "body": "b", "entity": "lead", "record_id": l.ID})
		if r.Status != http.StatusNotFound {
			t.Fatalf("other tenant's preview: %d %s", r.Status, r.Body)
		}
		// Without settings: 403.
		noSettings := e.APIClient(e.User(a, "sales@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full}).Email)
		if r = noSettings.Get("/v1/api/list-template-master"); r.Status != http.StatusForbidden {
			t.Fatalf("without settings: %d", r.Status)
		}
		if r = api.Do("DELETE", "/v1/api/delete-template-master/"+strconv.FormatInt(id, 10), nil); r.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if r = api.Get("/v1/api/view-template-master/" + strconv.FormatInt(id, 10)); r.Status != http.StatusNotFound {
			t.Fatalf("deleted: %d", r.Status)
		}
	})
}

func TestTemplatePagesAndPreview(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db)
		a := e.Tenant("Acme")
		br := e.Browser(a.Admin.Email)
		l := lead(t, e.Scope(a), "Bea", "bea@example.test")
		if r := br.Get("/settings/templates"); r.Status != http.StatusOK || !strings.Contains(r.Body, `data-testid="templates-empty"`) {
			t.Fatalf("empty list: %d", r.Status)
		}
		form := url.Values{"name": {"Promo"}, "subject": {"Hi {{customer_name}}"}, "body": {"Dear {{customer_name}} {{unknown}}"}}
		r := br.Form("/settings/templates/new", form)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-body"`) {
			t.Fatalf("unknown merge field: %d", r.Status)
		}
		form.Set("body", "Dear **{{customer_name}}** from {{company_profile_name}}")
		r = br.Form("/settings/templates/new", form)
		if r.Status != http.StatusSeeOther {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		page := br.Get(r.Header.Get("Location"))
		if page.Status != http.StatusOK || !strings.Contains(page.Body, "{{owner_email}}") || !strings.Contains(page.Body, `hx-post="/settings/templates/preview"`) {
			t.Fatalf("edit page: %d", page.Status)
		}
		preview := url.Values{"subject": {"Hi {{customer_name}}"}, "body": {"Dear **{{customer_name}}** from {{company_profile_name}}<script>x()</script>"},
			"preview_entity": {"lead"}, "preview_id": {strconv.FormatInt(l.ID, 10)}}
		r = br.Form("/settings/templates/preview", preview, "HX-Request", "true")
		if r.Status != http.StatusOK || !strings.Contains(r.Body, "<strong>Bea</strong> from Acme") || strings.Contains(r.Body, "<script>x()") ||
			!strings.Contains(r.Body, `data-testid="preview-subject">Hi Bea<`) {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		preview.Set("subject", "{{nope}}")
		if r = br.Form("/settings/templates/preview", preview, "HX-Request", "true"); !strings.Contains(r.Body, `data-testid="preview-errors"`) {
			t.Fatalf("preview of an unknown field: %d %s", r.Status, r.Body)
		}
	})
}

func TestBulkEmail(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := apptest.NewServer(t, db)
		a, b := e.Tenant("Acme"), e.Tenant("Other")
		s := e.Scope(a)
		tpl, err := s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "News", Subject: "News for {{customer_name}}", Body: "Hello {{customer_name}}"})
		if err != nil {
			t.Fatal(err)
		}
		one, two, gone := lead(t, s, "One", "one@example.test"), lead(t, s, "Two", "two@example.test"), lead(t, s, "Gone", "gone@example.test")
		noMail := lead(t, s, "NoMail", "nomail@example.test")
		if _, err := s.Update((*store.Lead)(nil)).Set("company_email = ''").Where("l.id = ?", noMail.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		eid, _ := s.EnqueueEmail(ctx, store.EmailInput{To: "gone@example.test", Subject: "s", Text: "t", Kind: store.EmailBulk})
		em, _ := s.Email(ctx, eid)
		if _, err := db.Unsubscribe(ctx, em.UnsubscribeToken); err != nil {
			t.Fatal(err)
		}
		foreign := lead(t, e.Scope(b), "Foreign", "foreign@example.test")

		// From the list: the ticked leads (and another tenant's id, ignored).
		br := e.Browser(a.Admin.Email)
		ids := url.Values{"back": {"/leads"}, "ids": {strconv.FormatInt(one.ID, 10), strconv.FormatInt(gone.ID, 10), strconv.FormatInt(noMail.ID, 10), strconv.FormatInt(foreign.ID, 10)}}
		r := br.Form("/leads/bulk/email", ids)
		if r.Status != http.StatusOK || !strings.Contains(r.Body, `data-testid="send-recipients" data-count="1"`) ||
			!strings.Contains(r.Body, `data-testid="send-no-email" data-count="1"`) || !strings.Contains(r.Body, `data-testid="send-unsubscribed" data-count="1"`) {
			t.Fatalf("confirmation: %d %s", r.Status, r.Body)
		}
		ids.Set("template_id", strconv.FormatInt(tpl.ID, 10))
		r = br.Form("/leads/bulk/email/send", ids)
		if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/emails/sends/") {
			t.Fatalf("send: %d %s", r.Status, r.Body)
		}
		sendID, _ := strconv.ParseInt(strings.TrimPrefix(r.Header.Get("Location"), "/emails/sends/"), 10, 64)
		send := waitSend(t, s, sendID)
		if send.Total != 3 || send.Queued != 1 || send.SkippedNoEmail != 1 || send.SkippedUnsubscribed != 1 || send.Status != store.SendDone {
			t.Fatalf("send %+v", send)
		}
		if page := br.Get(r.Header.Get("Location")); page.Status != http.StatusOK || !strings.Contains(page.Body, `data-status="done"`) {
			t.Fatalf("report: %d", page.Status)
		}
		hist, err := s.ListEmails(ctx, store.EmailQuery{Kind: store.EmailBulk, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]store.Email{}
		for _, m := range hist.Rows {
			if m.Purpose == store.PurposeCampaign {
				found[m.ToAddress] = m
			}
		}
		if len(found) != 2 || found["one@example.test"].Subject != "News for One" || found["gone@example.test"].Status != store.EmailUnsubscribed {
			t.Fatalf("outbox %+v", found)
		}
		full, _ := s.Email(ctx, found["one@example.test"].ID)
		if !strings.Contains(full.BodyHTML, "Hello One") || full.Kind != store.EmailBulk {
			t.Fatalf("message %+v", full)
		}

		// The API, with the list's query: every lead matching the search "two".
		api := e.APIClient(a.Admin.Email)
		r = api.Do("POST", "/v1/api/lead/send-bulk-email", map[string]any{"template_id": tpl.ID, "query": "search=two"})
		if r.Status != http.StatusAccepted || r.Env().Data["total"] != float64(1) {
			t.Fatalf("API send: %d %s", r.Status, r.Body)
		}
		apiSend := int64(r.Env().Data["id"].(float64))
		waitSend(t, s, apiSend)
		r = api.Get("/v1/api/lead/view-bulk-email/" + strconv.FormatInt(apiSend, 10))
		if r.Status != http.StatusOK || r.Env().Data["queued"] != float64(1) || r.Env().Data["status"] != "done" {
			t.Fatalf("API progress: %d %s", r.Status, r.Body)
		}
		if m, _ := s.ListEmails(ctx, store.EmailQuery{Search: "two@example.test"}); len(m.Rows) != 1 {
			t.Fatalf("two's messages: %+v", m.Rows)
		}
		// Another tenant's template is refused; its leads never reached.
		r = e.APIClient(b.Admin.Email).Do("POST", "/v1/api/lead/send-bulk-email", map[string]any{"template_id": tpl.ID, "ids": []int64{one.ID}})
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("other tenant: %d %s", r.Status, r.Body)
		}
		// Viewing (and exporting) leads without updating them: no bulk email.
		viewer := e.User(a, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		if r = e.APIClient(viewer.Email).Do("POST", "/v1/api/lead/send-bulk-email", map[string]any{"template_id": tpl.ID, "ids": []int64{one.ID}}); r.Status != http.StatusForbidden {
			t.Fatalf("without update: %d", r.Status)
		}
		if list := e.Browser(viewer.Email).Get("/leads"); strings.Contains(list.Body, `data-testid="bulk-email"`) {
			t.Fatal("the list offers bulk email without update")
		}
		if list := br.Get("/leads"); !strings.Contains(list.Body, `data-testid="bulk-email"`) {
			t.Fatal("the list lacks bulk email")
		}
		_ = two
	})
}
