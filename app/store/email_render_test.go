package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
	"crm/app/validate"
)

// TestRenderTemplate renders a template for a lead and a client: every merge field, the
// owner's language variant, values escaped in HTML, scripts removed, another tenant's
// template and record not found, a subject with a line break refused.
func TestRenderTemplate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "Acme & Co", "a@acme.test")
		s := db.System(tn.ID, u.ID)
		all := make([]string, 0, len(store.MergeFields))
		for _, f := range store.MergeFields {
			all = append(all, f+"=[{{"+f+"}}]")
		}
		tpl, err := s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "Hello", Subject: "Hi {{ customer_name }} from {{company_profile_name}}",
			Body:     "**Dear** {{customer_name}},\n\n" + strings.Join(all, "\n") + "\n\n<script>alert(1)</script><a href=\"javascript:x()\" onclick=\"y()\">x</a>",
			Variants: []store.EmailTemplateVariantInput{{Locale: "fr_FR", Subject: "Bonjour {{customer_name}}", Body: "Bonjour {{customer_name}}"}}})
		if err != nil {
			t.Fatal(err)
		}
		lead, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Ann Lee", CompanyName: "Lee Ltd",
			CompanyEmail: "ann@lee.test", CompanyDialCode: "+44", CompanyPhoneNumber: "7700900123", OwnerID: &u.ID}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		// A value that looks like HTML (written around the forms' checks) stays text.
		if _, err := db.System(tn.ID, 0).Update((*store.Lead)(nil)).Set("customer_name = ?", "Ann <b>Lee</b>").Where("id = ?", lead.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		m, err := s.RenderTemplate(ctx, tpl.ID, store.LeadTarget(lead.ID))
		if err != nil {
			t.Fatal(err)
		}
		if m.Subject != "Hi Ann <b>Lee</b> from Acme & Co" || m.To != "ann@lee.test" || m.LeadID != lead.ID || m.Locale != "" {
			t.Fatalf("rendered %+v", m)
		}
		want := map[string]string{"customer_name": "Ann <b>Lee</b>", "company_name": "Lee Ltd", "company_email": "ann@lee.test",
			"company_phone": "+44 7700900123", "owner_name": u.Name, "owner_email": u.Email, "company_profile_name": "Acme & Co",
			"tenant_name": "Acme & Co", "stage_name": lead.LeadStageName, "status_name": lead.LeadStatusName, "source_name": lead.LeadSourceName}
		for f, v := range want {
			if !strings.Contains(m.Text, f+"=["+v+"]") {
				t.Errorf("text lacks %s=[%s]: %s", f, v, m.Text)
			}
		}
		if lead.LeadStageName == "" || lead.LeadStatusName == "" {
			t.Fatalf("lead without stage or status: %+v", lead)
		}
		for _, bad := range []string{"<script", "javascript:", "onclick", "<b>Lee"} {
			if strings.Contains(m.HTML, bad) {
				t.Errorf("HTML keeps %q: %s", bad, m.HTML)
			}
		}
		if !strings.Contains(m.HTML, "<strong>Dear</strong> Ann &lt;b&gt;Lee&lt;/b&gt;") {
			t.Errorf("HTML: %s", m.HTML)
		}

		// The owner's language picks the variant.
		if _, err := db.System(tn.ID, 0).Update((*store.User)(nil)).Set("locale = 'fr_FR'").Where("id = ?", u.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		m, err = s.RenderTemplate(ctx, tpl.ID, store.LeadTarget(lead.ID))
		if err != nil || m.Subject != "Bonjour Ann <b>Lee</b>" || m.Locale != "fr_FR" {
			t.Fatalf("variant: %+v %v", m, err)
		}

		// A client: its fields, no stage (its owner back in English).
		if _, err := db.System(tn.ID, 0).Update((*store.User)(nil)).Set("locale = 'en_US'").Where("id = ?", u.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		client, err := s.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Bob", CompanyEmail: "bob@b.test"}})
		if err != nil {
			t.Fatal(err)
		}
		m, err = s.RenderTemplate(ctx, tpl.ID, store.ClientTarget(client.ID))
		if err != nil || m.ClientID != client.ID || !strings.Contains(m.Text, "customer_name=[Bob]") || !strings.Contains(m.Text, "stage_name=[]") {
			t.Fatalf("client: %+v %v", m, err)
		}

		// Another tenant sees neither the template nor the lead.
		tn2, u2 := newTenant(t, db, "Other", "o@other.test")
		s2 := db.System(tn2.ID, u2.ID)
		if _, err := s2.RenderTemplate(ctx, tpl.ID, store.LeadTarget(lead.ID)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other tenant's template: %v", err)
		}
		tpl2, err := s2.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "T", Subject: "S", Body: "B"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s2.RenderTemplate(ctx, tpl2.ID, store.LeadTarget(lead.ID)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other tenant's lead: %v", err)
		}

		// Unknown merge fields and line breaks in a subject are refused.
		_, err = s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "Bad", Subject: "{{password}}", Body: "{{customer_name"})
		var errs validate.Errors
		if !errors.As(err, &errs) || errs["subject"] != store.KeyUnknownMergeField || errs["body"] != store.KeyUnknownMergeField {
			t.Fatalf("unknown fields: %v", err)
		}
		_, err = s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "Bad", Subject: "a\r\nBcc: x@y.test", Body: "b"})
		if !errors.As(err, &errs) || errs["subject"] != validate.KeyInvalidCharacters {
			t.Fatalf("subject with CRLF: %v", err)
		}
		// A value with a line break in a rendered subject is refused too.
		if _, err := db.System(tn.ID, 0).Update((*store.Lead)(nil)).Set("customer_name = ?", "Ann\r\nBcc: x@y.test").Where("id = ?", lead.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tpl3, err := s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "Plain", Subject: "Hi {{customer_name}}", Body: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RenderTemplate(ctx, tpl3.ID, store.LeadTarget(lead.ID)); !errors.As(err, &errs) || errs["subject"] != validate.KeyInvalidCharacters {
			t.Fatalf("rendered subject with CRLF: %v", err)
		}
	})
}
