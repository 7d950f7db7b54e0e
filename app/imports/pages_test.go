package imports_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/store"
)

func TestImportPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b := e.Browser(f.Admin.Email)
		if r := b.Get("/imports"); r.Status != 200 || !strings.Contains(r.Body, "You have not imported anything yet.") {
			t.Fatalf("empty list: %d", r.Status)
		}
		if r := b.Get("/imports/new"); r.Status != 200 || !strings.Contains(r.Body, `enctype="multipart/form-data"`) ||
			!strings.Contains(r.Body, `<option value="lead"`) {
			t.Fatalf("new page: %d %s", r.Status, r.Body)
		}
		// A refused file comes back to the form with the reason next to the file field.
		r := b.MultipartFile("/imports/new", url.Values{"entity": {"lead"}}, "file", "empty.csv", nil)
		if r.Status != 422 || !strings.Contains(r.Body, `id="f-file-error"`) || !strings.Contains(r.Body, "The file is empty.") {
			t.Fatalf("empty upload: %d %s", r.Status, r.Body)
		}
		data := apptest.BOM + "Nom;Email;Phone\nAna;ana@x.test;9000000001\nBad;bad;\n"
		r = b.MultipartFile("/imports/new", url.Values{"entity": {"lead"}}, "file", "people.csv", []byte(data))
		if r.Status != http.StatusSeeOther {
			t.Fatalf("upload: %d %s", r.Status, r.Body)
		}
		page := r.Header.Get("Location")
		id := strings.TrimPrefix(page, "/imports/")
		r = b.Get(page)
		if r.Status != 200 || !strings.Contains(r.Body, `data-testid="import-mapping"`) ||
			!regexp.MustCompile(`<option value="company_email" selected>`).MatchString(r.Body) ||
			!strings.Contains(r.Body, "ana@x.test") {
			t.Fatalf("mapping page: %d %s", r.Status, r.Body)
		}
		// A mapping without the name column is refused with the reason.
		r = b.Form(page+"/run", url.Values{"map.0": {""}, "map.1": {"company_email"}, "map.2": {""}, "mode": {"create"}, "match_key": {"email"}})
		if r.Status != 422 || !strings.Contains(r.Body, "Choose the column that holds Customer name") {
			t.Fatalf("refused mapping: %d %s", r.Status, r.Body)
		}
		r = b.Form(page+"/run", url.Values{"map.0": {"customer_name"}, "map.1": {"company_email"}, "map.2": {"company_phone_number"},
			"mode": {"create"}, "match_key": {"email"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != page {
			t.Fatalf("run: %d %s", r.Status, r.Body)
		}
		api := e.APIClient(f.Admin.Email)
		n, _ := strconv.ParseInt(id, 10, 64)
		waitImport(t, api, n)
		// The progress fragment, once the import is over, is the report without polling.
		r = b.Get(page+"/progress", "HX-Request", "true", "HX-Target", "import-status")
		if r.Status != 200 || strings.Contains(r.Body, "hx-trigger") || !strings.Contains(r.Body, `data-testid="import-report"`) ||
			strings.Contains(r.Body, "<html") {
			t.Fatalf("progress fragment: %d %s", r.Status, r.Body)
		}
		r = b.Get(page)
		if r.Status != 200 || !strings.Contains(r.Body, "Import finished") || !strings.Contains(r.Body, "Email: Enter a valid email address.") ||
			!strings.Contains(r.Body, `href="/imports/`+id+`/undo"`) {
			t.Fatalf("report page: %d %s", r.Status, r.Body)
		}
		// The downloadable report: every row with its result and reason, then the row's cells.
		r = b.Get(page + "/report.csv")
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") || !strings.HasPrefix(r.Body, apptest.BOM) {
			t.Fatalf("report: %d %v", r.Status, r.Header)
		}
		recs, err := apptest.ReadCSV(strings.TrimPrefix(r.Body, apptest.BOM), ';')
		if err != nil || len(recs) != 3 || strings.Join(recs[0], "|") != "Row|Result|Record|Reason|Nom|Email|Phone" ||
			recs[1][1] != "Created" || recs[1][2] == "" || recs[2][0] != "3" || recs[2][1] != "Failed" ||
			recs[2][3] != "Email: Enter a valid email address." || recs[2][5] != "bad" {
			t.Fatalf("report CSV: %q %v", recs, err)
		}
		if r := b.Get("/imports"); r.Status != 200 || !strings.Contains(r.Body, "people.csv") || !strings.Contains(r.Body, ">Done<") {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		// Undo: a confirmation step, then the progress, then the report.
		if r := b.Get(page + "/undo"); r.Status != 200 || !strings.Contains(r.Body, `data-testid="confirm-submit"`) {
			t.Fatalf("undo confirm: %d %s", r.Status, r.Body)
		}
		if r := b.Form(page+"/undo", url.Values{}); r.Status != http.StatusSeeOther {
			t.Fatalf("undo: %d %s", r.Status, r.Body)
		}
		if im := waitImport(t, api, n); im.Status != store.ImportUndone {
			t.Fatalf("undo: %+v", im)
		}
		if r := b.Get(page); !strings.Contains(r.Body, "Import undone") || strings.Contains(r.Body, `/undo"`) {
			t.Fatalf("undone page: %s", r.Body)
		}
	})
}
