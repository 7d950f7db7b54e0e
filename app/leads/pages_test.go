// Long on purpose: the lead pages (list, form, view, edit, delete, saved views, board) are
// tested as one user clicking through them, each test a whole journey with its fixtures.

package leads_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// storedLead reads a lead back as its tenant's admin sees it.
func storedLead(t *testing.T, e *apptest.Env, f apptest.Tenant, id int64) *store.LeadView {
	t.Helper()
	l, err := e.DB.System(f.Tenant.ID, f.Admin.ID).LeadView(context.Background(), id)
	if err != nil {
		t.Fatalf("lead %d: %v", id, err)
	}
	return l
}

// leadForm is a valid lead form.
func leadForm(name, email string) url.Values {
	return url.Values{"customer_title": {"Mr."}, "customer_name": {name}, "company_name": {name + " Ltd"},
		"company_email": {email}, "company_dial_code": {"+91"}, "company_phone_number": {"9876543210"},
		"billing_address.city": {"Chennai"}, "notes": {"From the fair"}}
}

var leadPath = regexp.MustCompile(`^/leads/(\d+)$`)

// createdID is the id of the lead a create redirected to.
func createdID(t *testing.T, r *apptest.Response) int64 {
	t.Helper()
	m := leadPath.FindStringSubmatch(r.Location())
	if m == nil {
		t.Fatalf("created lead redirect to %q", r.Header.Get("Location"))
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

func TestLeadListPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		c.Get("/leads").WantStatus(200).Has("No leads found", `href="/leads/new"`)

		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		ana := apptest.AddLead(t, e, f, 0, "Ana Silva", apptest.InStage(won))
		apptest.AddLead(t, e, f, 0, "Bruno Costa")
		apptest.AddLead(t, e, f, 0, "Carla Dias")

		// The full page: shell, filters, the table and its tools.
		full := c.Get("/leads").WantStatus(200)
		full.Has("<html", `id="lead-filters"`, `id="lead-results"`, "3 leads", "Ana Silva", "Bruno Costa", "Carla Dias",
			`href="/leads/export.csv"`, `hx-trigger="submit, change from:#lead-filter-grid, input changed delay:300ms from:#f-search`, `aria-current="page"`)

		// Search as htmx asks for it: only the results region, with the sort fields out of band.
		frag := c.Htmx("/leads?search=ana", "lead-results").WantStatus(200)
		frag.Has("Ana Silva", "1 lead", `hx-swap-oob="true"`, `href="/leads/export.csv?search=ana"`).
			Lacks("<html", "Bruno Costa", `id="lead-filters"`)
		if !strings.Contains(strings.Join(frag.Header.Values("Vary"), ","), "HX-Target") {
			t.Fatalf("fragment without Vary: %v", frag.Header)
		}
		// Navigation into #main gets the page without the shell.
		c.Htmx("/leads", "main").WantStatus(200).Has("<title>", `id="lead-filters"`).Lacks("<html")
		// The same query without htmx is the whole page, with the search kept in the form.
		c.Get("/leads?search=ana").Has("<html", `value="ana"`, "Ana Silva").Lacks("Bruno Costa")

		// Sort by any column header; the header says how it is sorted.
		sorted := c.Get("/leads?sort=customer_name&order=desc").WantStatus(200)
		if a, b := strings.Index(sorted.Body, "Carla Dias"), strings.Index(sorted.Body, "Ana Silva"); a < 0 || b < a {
			t.Fatal("not sorted by name descending")
		}
		sorted.Has(`aria-sort="descending"`, `href="/leads?order=asc&amp;sort=customer_name"`)

		// Filters: stage, and an invalid date shown at its field.
		c.Get(fmt.Sprintf("/leads?stage_id=%d", won)).Has("Ana Silva", "1 lead").Lacks("Bruno Costa")
		c.Get("/leads?from=2026-13-45").WantInlineError("f-from", "Enter a valid date.")
		c.Get("/leads?to=2000-01-01").Has("No leads match this search and these filters.")
		c.Get("/leads?search=nobody-like-this").Has("No leads match")

		// The row links to the lead.
		full.Has(fmt.Sprintf(`href="/leads/%d"`, ana))
	})
}

func TestLeadListPaging(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		for i := range 25 {
			apptest.AddLead(t, e, f, 0, fmt.Sprintf("Lead %02d", i))
		}
		c := e.Browser(f.Admin.Email)
		first := c.Get("/leads?sort=customer_name").WantStatus(200).Has("25 leads", "Lead 00", "Lead 19").Lacks("Lead 20")
		next := regexp.MustCompile(`<a href="(/leads\?after=[^"]+)"`).FindStringSubmatch(first.Body)
		if next == nil {
			t.Fatalf("no next page link: %s", first.Body)
		}
		second := c.Get(html.UnescapeString(next[1])).WantStatus(200)
		second.Has("Lead 20", "Lead 24", "First page").Lacks("Lead 19", "Next page")
		// Page sizes: 50 shows them all.
		c.Get("/leads?limit=50").Has("Lead 00", "Lead 24").Lacks("Next page")
		// A cursor that does not fit the sort starts again from the first page.
		c.Get("/leads?sort=company_name&after=bogus").WantStatus(200).Has("Lead 00")
	})
}

func TestLeadFormPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		c.Get("/leads/new").WantStatus(200).Has(`enctype="multipart/form-data"`, `<label for="f-customer-name">`,
			`<label for="f-company-email">`, `<option value="+351">+351</option>`, `name="billing_address.flatNo"`,
			`name="shipping_address.country"`, `name="company_logo"`, `accept="image/png,image/jpeg,image/gif,image/webp"`)

		// Refused: the messages sit next to their fields, in a 422, and the input is kept.
		bad := leadForm("Ana Silva", "not-an-email")
		bad.Set("company_phone_number", "12ab")
		bad.Set("customer_name", "<b>Ana</b>")
		r := c.Form("/leads/new", bad).WantStatus(http.StatusUnprocessableEntity)
		r.WantInlineError("f-company-email", "Enter a valid email address.")
		r.WantInlineError("f-company-phone-number", "Enter 10 to 15 digits.")
		r.WantInlineError("f-customer-name", "HTML is not allowed here.")
		r.Has(`value="not-an-email"`, `value="Ana Silva Ltd"`, `data-testid="error-summary"`, "Please correct the highlighted fields.")
		if countLeads(t, e, f) != 0 {
			t.Fatal("a refused form was saved")
		}

		// Saved: a redirect to the lead's page, which shows every field and a toast.
		id := createdID(t, c.Form("/leads/new", leadForm("Ana Silva", "ana@example.com")))
		page := c.Get(fmt.Sprintf("/leads/%d", id)).WantStatus(200)
		page.Has("Lead created successfully", "Ana Silva", "Ana Silva Ltd", "ana@example.com", "+91 9876543210", "Chennai",
			"From the fair", "created the lead", `data-testid="journey"`)

		// A second lead with the same email: a warning naming the first, nothing saved yet.
		dup := c.Form("/leads/new", leadForm("Ana Other", "ANA@example.com")).WantStatus(200)
		dup.Has(`data-testid="duplicate-warning"`, fmt.Sprintf(`href="/leads/%d"`, id), "Ana Silva", `name="confirm_duplicate" value="1"`,
			`value="Ana Other"`)
		if countLeads(t, e, f) != 1 {
			t.Fatal("saved despite the duplicate warning")
		}
		// A duplicate with other mistakes shows the warning and the mistakes together.
		both := c.Form("/leads/new", leadForm("<i>Ana</i>", "ana@example.com")).WantStatus(422)
		both.Has(`data-testid="duplicate-warning"`)
		both.WantInlineError("f-customer-name", "HTML is not allowed here.")
		if countLeads(t, e, f) != 1 {
			t.Fatal("the check of a duplicate saved it")
		}
		// Save anyway.
		again := leadForm("Ana Other", "ana@example.com")
		again.Set("confirm_duplicate", "1")
		other := createdID(t, c.Form("/leads/new", again))
		if other == id || countLeads(t, e, f) != 2 {
			t.Fatal("save anyway did not save")
		}

		// Edit: prefilled; a change lands in the journey with before → after.
		c.Get(fmt.Sprintf("/leads/%d/edit", id)).WantStatus(200).Has(`value="Ana Silva"`, `value="ana@example.com"`)
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		edit := leadForm("Ana Souza", "ana@example.com")
		edit.Set("lead_stage_id", strconv.FormatInt(won, 10))
		if loc := c.Form(fmt.Sprintf("/leads/%d/edit", id), edit).Location(); loc != fmt.Sprintf("/leads/%d", id) {
			t.Fatalf("edit went to %s", loc)
		}
		page = c.Get(fmt.Sprintf("/leads/%d", id)).WantStatus(200)
		page.Has("Lead updated successfully", `<span class="before">Ana Silva</span>`, `<span class="after">Ana Souza</span>`,
			`<span class="before">Leads</span>`, `<span class="after">Won</span>`, "moved the stage")
		if n := strings.Count(page.Body, `<span class="after">Won</span>`); n != 1 {
			t.Fatalf("the stage change shows %d times in the journey", n)
		}
		if i, j := strings.Index(page.Body, "moved the stage"), strings.Index(page.Body, "created the lead"); i > j {
			t.Fatal("journey is not newest first")
		}
		// Edit refused, and an edit to another lead's email warns.
		bad = leadForm("Ana Souza", "nope")
		c.Form(fmt.Sprintf("/leads/%d/edit", id), bad).WantStatus(422).WantInlineError("f-company-email", "Enter a valid email address.")
		c.Form(fmt.Sprintf("/leads/%d/edit", other), leadForm("Ana Other", "ana@example.com")).WantStatus(303)
		third := apptest.AddLead(t, e, f, 0, "Zed")
		c.Form(fmt.Sprintf("/leads/%d/edit", third), leadForm("Zed", "ana@example.com")).WantStatus(200).
			Has(`data-testid="duplicate-warning"`)

		// Stage and status buttons.
		lost := apptest.MasterID(t, e, f, store.KindStage, "Lost")
		c.Form(fmt.Sprintf("/leads/%d/stage", id), url.Values{"lead_stage_id": {strconv.FormatInt(lost, 10)}}).WantStatus(303)
		converted := apptest.MasterID(t, e, f, store.KindStatus, "Converted")
		c.Form(fmt.Sprintf("/leads/%d/status", id), url.Values{"lead_status_id": {strconv.FormatInt(converted, 10)}}).WantStatus(303)
		if l := storedLead(t, e, f, id); l.LeadStageName != "Lost" || l.LeadStatusName != "Converted" {
			t.Fatalf("quick changes: %s / %s", l.LeadStageName, l.LeadStatusName)
		}
		c.Get(fmt.Sprintf("/leads/%d", id)).Has("changed the status", `<span class="after">Converted</span>`, `data-testid="stage-current"`)

		// Delete: a confirmation step, then the lead is gone.
		c.Get(fmt.Sprintf("/leads/%d/delete", id)).WantStatus(200).Has(`data-testid="confirm"`, "Ana Souza",
			fmt.Sprintf(`action="/leads/%d/delete"`, id))
		if loc := c.Form(fmt.Sprintf("/leads/%d/delete", id), nil).Location(); loc != "/leads" {
			t.Fatalf("delete went to %s", loc)
		}
		c.Get("/leads").Has("Lead deleted")
		c.Get(fmt.Sprintf("/leads/%d", id)).WantStatus(404)
	})
}

func TestLeadFormLogo(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		// Not an image: refused at the field, the rest kept.
		r := c.MultipartFile("/leads/new", leadForm("Ana", "ana@example.com"), "company_logo", "logo.png", []byte("plain text, not a picture"))
		r.WantStatus(422).WantInlineError("f-company-logo", "Choose a PNG, JPEG, GIF or WebP image.")
		r.Has(`value="ana@example.com"`)
		// Too large.
		big := c.MultipartFile("/leads/new", leadForm("Ana", "ana@example.com"), "company_logo", "big.png", make([]byte, 2048*1024+1))
		big.WantStatus(422).WantInlineError("f-company-logo", "The file is larger than 2048 KB.")

		// A real PNG, with a refused field: the image is kept for the next post.
		png := apptest.PNGBytes(t)
		form := leadForm("Ana", "bad")
		r = c.MultipartFile("/leads/new", form, "company_logo", "logo.png", png).WantStatus(422)
		kept := regexp.MustCompile(`name="company_logo_kept" value="([^"]+)"`).FindStringSubmatch(r.Body)
		if kept == nil {
			t.Fatal("the chosen logo is not kept")
		}
		form.Set("company_email", "ana@example.com")
		form.Set("company_logo_kept", html.UnescapeString(kept[1]))
		id := createdID(t, c.Form("/leads/new", form))
		c.Get(fmt.Sprintf("/leads/%d", id)).Has(fmt.Sprintf(`src="/v1/api/lead/logo/%d"`, id))
		logo, err := e.DB.System(f.Tenant.ID, f.Admin.ID).LeadLogo(context.Background(), id)
		if err != nil || logo.MediaType != "image/png" || !bytes.Equal(logo.Data, png) {
			t.Fatalf("logo: %v %+v", err, logo)
		}
	})
}

func TestLeadBulkPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		a, b := apptest.AddLead(t, e, f, 0, "Ana Silva"), apptest.AddLead(t, e, f, 0, "Bruno Costa")
		keep := apptest.AddLead(t, e, f, 0, "Carla Dias")
		c.Get("/leads").Has(`data-testid="bulk-tools"`, `name="ids"`, `formaction="/leads/bulk/delete"`)
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		ids := []string{strconv.FormatInt(a, 10), strconv.FormatInt(b, 10)}

		// Nothing selected: the list again, with the reason at the bulk tools.
		c.Form("/leads/bulk/update", url.Values{"field": {"lead_stage_id"}, "lead_stage_id": {strconv.FormatInt(won, 10)},
			"back": {"/leads?search=a"}}).WantStatus(422).Has("Select at least one lead first.", `value="a"`)
		// No value chosen.
		c.Form("/leads/bulk/update", url.Values{"ids": ids, "field": {"lead_stage_id"}, "back": {"/leads"}}).
			WantStatus(422).Has("Choose the new value first.")

		// Change the stage of two leads; back to the list with a toast.
		r := c.Form("/leads/bulk/update", url.Values{"ids": ids, "field": {"lead_stage_id"},
			"lead_stage_id": {strconv.FormatInt(won, 10)}, "lead_status_id": {""}, "back": {"/leads?sort=customer_name"}})
		if loc := r.Location(); loc != "/leads?sort=customer_name" {
			t.Fatalf("bulk went back to %s", loc)
		}
		c.Get("/leads").Has("2 leads updated")
		for _, id := range []int64{a, b} {
			if storedLead(t, e, f, id).LeadStageName != "Won" {
				t.Fatalf("lead %d not moved", id)
			}
		}
		if storedLead(t, e, f, keep).LeadStageName == "Won" {
			t.Fatal("an unselected lead moved")
		}
		c.Get(fmt.Sprintf("/leads/%d", a)).Has("moved the stage", `<span class="after">Won</span>`)

		// Owner and status too.
		sam := e.User(f, "sam@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full})
		c.Form("/leads/bulk/update", url.Values{"ids": ids[:1], "field": {"owner_id"}, "owner_id": {strconv.FormatInt(sam.ID, 10)}}).WantStatus(303)
		if storedLead(t, e, f, a).OwnerID == nil || *storedLead(t, e, f, a).OwnerID != sam.ID {
			t.Fatal("owner not changed")
		}

		// Delete: the first post lists what will go and deletes nothing.
		confirm := c.Form("/leads/bulk/delete", url.Values{"ids": ids, "back": {"/leads"}}).WantStatus(200)
		confirm.Has(`data-testid="confirm"`, "These 2 leads will be deleted.", "Ana Silva", "Bruno Costa", `name="confirm" value="1"`).
			Lacks("Carla Dias")
		if countLeads(t, e, f) != 3 {
			t.Fatal("deleted before the confirmation")
		}
		form := url.Values{"ids": ids, "back": {"/leads"}, "confirm": {"1"}}
		if loc := c.Form("/leads/bulk/delete", form).Location(); loc != "/leads" {
			t.Fatalf("bulk delete went to %s", loc)
		}
		c.Get("/leads").Has("2 leads deleted", "Carla Dias").Lacks("Ana Silva")
		if countLeads(t, e, f) != 1 {
			t.Fatal("bulk delete did not delete")
		}
	})
}

func TestSavedViewPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		apptest.AddLead(t, e, f, 0, "Ana Silva")
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		query := fmt.Sprintf("stage_id=%d&sort=customer_name&after=xyz", won)
		r := c.Form("/leads/views", url.Values{"name": {"Won leads"}, "query": {query}})
		want := fmt.Sprintf("/leads?sort=customer_name&stage_id=%d", won)
		if loc := r.Location(); loc != want {
			t.Fatalf("saved view opens %s, want %s", loc, want)
		}
		list := c.Get("/leads").Has("View saved", `data-testid="saved-views"`, ">Won leads</a>", html.EscapeString(want))
		// A name is required: the list again with the error at the field.
		c.Form("/leads/views", url.Values{"name": {" "}, "query": {"search=ana"}}).WantStatus(422).
			WantInlineError("f-view-name", "This field is required.")
		// Delete it.
		id := regexp.MustCompile(`action="/leads/views/(\d+)/delete"`).FindStringSubmatch(list.Body)
		if id == nil {
			t.Fatal("no delete form for the saved view")
		}
		c.Form("/leads/views/"+id[1]+"/delete", nil).WantStatus(303)
		c.Get("/leads").Has("View deleted").Lacks(">Won leads</a>")
		// Another user's view is not found.
		v, err := e.DB.System(f.Tenant.ID, f.Admin.ID).SaveView(context.Background(), "Mine", "a=1")
		if err != nil {
			t.Fatal(err)
		}
		other := e.User(f, "other@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		e.Browser(other.Email).Form(fmt.Sprintf("/leads/views/%d/delete", v.ID), nil).WantStatus(404)
	})
}

func TestBoardPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		deals := apptest.MasterID(t, e, f, store.KindStage, "Deals")
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		ana := apptest.AddLead(t, e, f, 0, "Ana Silva", apptest.InStage(deals))
		for i := range 53 {
			apptest.AddLead(t, e, f, 0, fmt.Sprintf("Bulk %02d", i), apptest.InStage(won))
		}
		b := c.Get("/leads/board").WantStatus(200)
		b.Has(`data-testid="board"`, `data-board="edit"`, `<script src="/static/build/board-`, fmt.Sprintf(`data-testid="card-%d"`, ana),
			`data-testid="column-Won"`, ">Ana Silva Co</a>", "Ana Silva")
		// Columns in stage order.
		var at []int
		for _, name := range []string{"Leads", "Deals", "Won", "Lost"} {
			at = append(at, strings.Index(b.Body, `data-testid="column-`+name+`"`))
		}
		for i := 1; i < len(at); i++ {
			if at[i] < at[i-1] {
				t.Fatalf("columns out of order: %v", at)
			}
		}
		// Lazy columns: 50 cards, then a link to the rest.
		if n := strings.Count(b.Body, `class="board-card"`); n != 51 {
			t.Fatalf("%d cards on the first load, want 51", n)
		}
		more := regexp.MustCompile(`<a href="(/leads/board/more\?stage_id=` + strconv.FormatInt(won, 10) + `&amp;after=[^"]+)"`).FindStringSubmatch(b.Body)
		if more == nil {
			t.Fatal("no more link on the Won column")
		}
		href := html.UnescapeString(more[1])
		frag := c.Get(href, "HX-Request", "true").WantStatus(200)
		if n := strings.Count(frag.Body, `class="board-card"`); n != 3 {
			t.Fatalf("%d more cards, want 3", n)
		}
		frag.Has(`hx-swap-oob="true"`, fmt.Sprintf(`id="more-%d"`, won)).Lacks("<html", "/leads/board/more?")
		c.Get(href).WantStatus(200).Has("<html", "Bulk 00")

		// Navigation by htmx loads the board in full, so its script runs.
		nav := c.Htmx("/leads/board", "main").WantStatus(200)
		if nav.Header.Get("HX-Redirect") != "/leads/board" {
			t.Fatalf("htmx navigation to the board: %v", nav.Header)
		}

		// Without JavaScript: the card's stage form moves it and comes back to the board.
		if loc := c.Form(fmt.Sprintf("/leads/%d/stage", ana), url.Values{"lead_stage_id": {strconv.FormatInt(won, 10)},
			"back": {"/leads/board"}}).Location(); loc != "/leads/board" {
			t.Fatalf("move went to %s", loc)
		}
		if storedLead(t, e, f, ana).LeadStageName != "Won" {
			t.Fatal("card not moved")
		}
		c.Get(fmt.Sprintf("/leads/%d", ana)).Has("moved the stage", `<span class="before">Deals</span>`, `<span class="after">Won</span>`)
		// An unsafe back address is ignored.
		c.Form(fmt.Sprintf("/leads/%d/stage", ana), url.Values{"lead_stage_id": {strconv.FormatInt(deals, 10)},
			"back": {"//evil.test/"}}).Location()
		// A stage of another kind is refused.
		status := apptest.MasterID(t, e, f, store.KindStatus, "Converted")
		c.Form(fmt.Sprintf("/leads/%d/stage", ana), url.Values{"lead_stage_id": {strconv.FormatInt(status, 10)}}).WantStatus(422)
	})
}

// TestLeadPagesIsolateTenants: every page that takes an id answers 404 for another tenant's.
func TestLeadPagesIsolateTenants(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a, b := e.Tenant("Alpha"), e.Tenant("Beta")
		id := apptest.AddLead(t, e, a, 0, "Alpha Lead")
		aStage := apptest.MasterID(t, e, a, store.KindStage, "Won")
		bStage := apptest.MasterID(t, e, b, store.KindStage, "Won")
		cb := e.Browser(b.Admin.Email)
		lead := fmt.Sprintf("/leads/%d", id)
		for _, path := range []string{lead, lead + "/edit", lead + "/delete",
			fmt.Sprintf("/leads/board/more?stage_id=%d", aStage)} {
			cb.Get(path).WantStatus(404)
		}
		for _, p := range []struct {
			path string
			form url.Values
		}{
			{lead + "/edit", leadForm("X", "x@example.com")},
			{lead + "/stage", url.Values{"lead_stage_id": {strconv.FormatInt(bStage, 10)}}},
			{lead + "/status", url.Values{"lead_status_id": {"1"}}},
			{lead + "/delete", nil},
		} {
			cb.Form(p.path, p.form).WantStatus(404)
		}
		cb.Form("/leads/bulk/delete", url.Values{"ids": {strconv.FormatInt(id, 10)}}).WantStatus(404)
		cb.Form("/leads/bulk/delete", url.Values{"ids": {strconv.FormatInt(id, 10)}, "confirm": {"1"}}).WantStatus(404)
		cb.Form("/leads/bulk/update", url.Values{"ids": {strconv.FormatInt(id, 10)}, "field": {"lead_stage_id"},
			"lead_stage_id": {strconv.FormatInt(bStage, 10)}}).WantStatus(303)
		cb.Get("/leads").Has("0 leads updated").Lacks("Alpha Lead")
		cb.Get("/leads/board").Lacks("Alpha Lead")
		if l := storedLead(t, e, a, id); l.CustomerName != "Alpha Lead" || l.LeadStageName != "Leads" {
			t.Fatalf("alpha's lead changed: %+v", l)
		}
	})
}

// TestLeadPagesRefuseWithoutPermission: every page answers 403 to a role without the action.
func TestLeadPagesRefuseWithoutPermission(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		id := apptest.AddLead(t, e, f, 0, "Ana")
		viewer := e.Browser(e.User(f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		nobody := e.Browser(e.User(f, "nobody@acme.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		lead := fmt.Sprintf("/leads/%d", id)
		gets := []struct {
			c    *apptest.Client
			path string
		}{
			{nobody, "/leads"}, {nobody, "/leads/board"}, {nobody, "/leads/board/more?stage_id=1"}, {nobody, lead},
			{viewer, "/leads/new"}, {viewer, lead + "/edit"}, {viewer, lead + "/delete"},
		}
		for _, g := range gets {
			if r := g.c.Get(g.path); r.Status != http.StatusForbidden {
				t.Errorf("GET %s: %d", g.path, r.Status)
			}
		}
		posts := []struct {
			c    *apptest.Client
			path string
		}{
			{nobody, "/leads/views"}, {nobody, "/leads/views/1/delete"},
			{viewer, "/leads/new"}, {viewer, lead + "/edit"}, {viewer, lead + "/stage"}, {viewer, lead + "/status"},
			{viewer, lead + "/delete"}, {viewer, "/leads/bulk/update"}, {viewer, "/leads/bulk/delete"},
		}
		for _, p := range posts {
			if r := p.c.Form(p.path, url.Values{"ids": {strconv.FormatInt(id, 10)}}); r.Status != http.StatusForbidden {
				t.Errorf("POST %s: %d", p.path, r.Status)
			}
		}
		// The navigation offers only what the role may view; the viewer's pages offer no changes.
		home := nobody.Get("/home").WantStatus(200)
		home.Lacks(`href="/leads"`, `href="/settings"`)
		page := viewer.Get(lead).WantStatus(200)
		page.Lacks(lead+"/edit", lead+"/delete", lead+"/stage")
		viewer.Get("/leads").WantStatus(200).Has(`href="/leads"`, `href="/leads/board"`).Lacks(`name="ids"`, `href="/leads/new"`, `href="/settings"`)
		viewer.Get("/leads/board").WantStatus(200).Has(`data-board="view"`).Lacks(`class="card-move"`)
		if storedLead(t, e, f, id).CustomerName != "Ana" {
			t.Fatal("refused calls changed the lead")
		}
	})
}

// TestLeadPagesOwnScope: a user whose role reaches only their own leads sees only those.
func TestLeadPagesOwnScope(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		sales := e.User(f, "sales@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Delete: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		mine := apptest.AddLead(t, e, f, sales.ID, "Sales Own")
		theirs := apptest.AddLead(t, e, f, 0, "Admin Own")
		c := e.Browser(sales.Email)
		c.Get("/leads").WantStatus(200).Has("Sales Own", "1 lead").Lacks("Admin Own")
		c.Get("/leads?search=own").Has("Sales Own").Lacks("Admin Own")
		c.Get("/leads/board").WantStatus(200).Has("Sales Own").Lacks("Admin Own")
		c.Get(fmt.Sprintf("/leads/%d", mine)).WantStatus(200)
		c.Get(fmt.Sprintf("/leads/%d", theirs)).WantStatus(404)
		c.Get(fmt.Sprintf("/leads/%d/edit", theirs)).WantStatus(404)
		// Their form keeps them as owner.
		form := c.Get("/leads/new").Has("you stay the owner")
		owner := regexp.MustCompile(`(?s)<select[^>]*name="owner_id"[^>]*>(.*?)</select>`).FindStringSubmatch(form.Body)
		if owner == nil || strings.Count(owner[1], "<option") != 1 || !strings.Contains(owner[1], fmt.Sprintf(`value="%d" selected`, sales.ID)) {
			t.Fatalf("owner choices of an own-scope user: %v", owner)
		}
		// A bulk change skips what they cannot reach.
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		c.Form("/leads/bulk/update", url.Values{"ids": {strconv.FormatInt(mine, 10), strconv.FormatInt(theirs, 10)},
			"field": {"lead_stage_id"}, "lead_stage_id": {strconv.FormatInt(won, 10)}}).WantStatus(303)
		if storedLead(t, e, f, theirs).LeadStageName == "Won" || storedLead(t, e, f, mine).LeadStageName != "Won" {
			t.Fatal("own scope not respected by the bulk change")
		}
	})
}
