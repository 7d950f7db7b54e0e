// Long on purpose: every import mode (create, update, upsert), match key, refusal, report and
// undo is a journey through the API on both databases, sharing the CSV fixtures at the top.

package imports_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// importData is an import as view-import shows it.
type importData struct {
	ID        int64      `json:"id"`
	Entity    string     `json:"entity"`
	Status    string     `json:"status"`
	Delimiter string     `json:"delimiter"`
	Encoding  string     `json:"encoding"`
	Header    []string   `json:"header"`
	Preview   [][]string `json:"preview"`
	Mapping   []string   `json:"mapping"`
	TotalRows int        `json:"total_rows"`
	Processed int        `json:"processed_rows"`
	Created   int        `json:"created"`
	Updated   int        `json:"updated"`
	Skipped   int        `json:"skipped"`
	Failed    int        `json:"failed"`
	Undone    int        `json:"undone"`
	Progress  int        `json:"progress"`
	Error     string     `json:"error"`
}

type importRowData struct {
	Row      int    `json:"row"`
	Outcome  string `json:"outcome"`
	RecordID *int64 `json:"record_id"`
	Reason   *struct {
		Code   string            `json:"code"`
		Field  string            `json:"field"`
		Value  string            `json:"value"`
		ID     int64             `json:"id"`
		Count  int               `json:"count"`
		Errors map[string]string `json:"errors"`
	} `json:"reason"`
	ReasonText string `json:"reason_text"`
	Undone     bool   `json:"undone"`
}

func decodeImport(t *testing.T, r *apptest.Response) importData {
	t.Helper()
	var env struct {
		Data importData `json:"data"`
	}
	apptest.MustJSON(t, r.Body, &env)
	return env.Data
}

// uploadCSV posts a file to create-import and returns the new import.
func uploadCSV(t *testing.T, c *apptest.Client, entity, name, data string) importData {
	t.Helper()
	r := c.UploadFiles("/v1/api/import/create-import?entity="+entity, "", apptest.Upload{Name: name, Data: []byte(data)})
	if r.Status != http.StatusCreated {
		t.Fatalf("upload %s: %d %s", name, r.Status, r.Body)
	}
	return decodeImport(t, r)
}

// waitImport polls view-import until the import is no longer queued or running.
func waitImport(t *testing.T, c *apptest.Client, id int64) importData {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := c.Get(fmt.Sprintf("/v1/api/import/view-import/%d", id))
		if r.Status != 200 {
			t.Fatalf("view import: %d %s", r.Status, r.Body)
		}
		im := decodeImport(t, r)
		switch im.Status {
		case store.ImportQueued, store.ImportRunning, store.ImportUndoQueued, store.ImportUndoing:
		default:
			return im
		}
		if time.Now().After(deadline) {
			t.Fatalf("import %d still %s", id, im.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runCSV uploads data, runs it with the suggested mapping (or the one given) and waits
// for the end.
func runCSV(t *testing.T, c *apptest.Client, entity, data, mode, key string, mapping ...string) importData {
	t.Helper()
	im := uploadCSV(t, c, entity, "data.csv", data)
	body := map[string]any{"mode": mode, "match_key": key}
	if mapping != nil {
		body["mapping"] = mapping
	}
	r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/run-import/%d", im.ID), body)
	if r.Status != http.StatusAccepted || r.Env().Message != "Import started" {
		t.Fatalf("run: %d %s", r.Status, r.Body)
	}
	return waitImport(t, c, im.ID)
}

func importRows(t *testing.T, c *apptest.Client, id int64) map[int]importRowData {
	t.Helper()
	r := c.Get(fmt.Sprintf("/v1/api/import/list-import-row/%d?limit=1000", id))
	if r.Status != 200 {
		t.Fatalf("rows: %d %s", r.Status, r.Body)
	}
	var env struct {
		Data struct {
			Result []importRowData `json:"result"`
		} `json:"data"`
	}
	apptest.MustJSON(t, r.Body, &env)
	out := map[int]importRowData{}
	for _, row := range env.Data.Result {
		out[row.Row] = row
	}
	return out
}

func wantCounts(t *testing.T, im importData, created, updated, skipped, failed int) {
	t.Helper()
	if im.Status != store.ImportDone || im.Created != created || im.Updated != updated || im.Skipped != skipped ||
		im.Failed != failed || im.Processed != im.TotalRows || im.Progress != 100 {
		t.Fatalf("import %s: created %d updated %d skipped %d failed %d (processed %d of %d, %d%%); want %d %d %d %d",
			im.Status, im.Created, im.Updated, im.Skipped, im.Failed, im.Processed, im.TotalRows, im.Progress,
			created, updated, skipped, failed)
	}
}

func wantRow(t *testing.T, rows map[int]importRowData, no int, outcome, code string) importRowData {
	t.Helper()
	row, ok := rows[no]
	if !ok {
		t.Fatalf("row %d not recorded", no)
	}
	if row.Outcome != outcome || code == "" && row.Reason != nil || code != "" && (row.Reason == nil || row.Reason.Code != code) {
		t.Fatalf("row %d: %s %+v %q; want %s %s", no, row.Outcome, row.Reason, row.ReasonText, outcome, code)
	}
	return row
}

func leadByEmail(t *testing.T, e *apptest.Env, f apptest.Tenant, email string) []store.LeadView {
	t.Helper()
	page, err := e.DB.System(f.Tenant.ID, f.Admin.ID).ListLeads(context.Background(), store.LeadQuery{Search: email, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []store.LeadView
	for _, l := range page.Rows {
		if l.CompanyEmail == email {
			out = append(out, l)
		}
	}
	return out
}

func seedLead(t *testing.T, e *apptest.Env, f apptest.Tenant, in store.LeadInput) *store.LeadView {
	t.Helper()
	v, _, err := e.DB.System(f.Tenant.ID, f.Admin.ID).CreateLead(context.Background(), in, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The same file of good, duplicate and bad rows, in each mode.
const modesCSV = "Name,E-mail,Phone,Stage,Company,Billing City\n" +
	"New A,a@x.test,90000 00010,Deals,A Co,Chennai\n" + // 2
	"Old Renamed,OLD@x.test,,Won,,\n" + // 3: an existing lead
	"Bad Email,not-an-email,,,,\n" + // 4
	"Unknown Stage,u@x.test,,Nope,,\n" + // 5
	"New A Again,a@x.test,,,,\n" + // 6: the same email as row 2
	",noname@x.test,,,,\n" + // 7
	"Phone Bad,p@x.test,123,,,\n" // 8

func TestImportModesWithDuplicatesAndBadRows(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		old := seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerName: "Old One", CompanyName: "Old Co", CompanyEmail: "old@x.test"}})

		// Create only: new rows are created, rows matching a lead (or an earlier row) are
		// skipped as duplicates, bad rows fail with the reason.
		im := runCSV(t, c, store.EntityLead, modesCSV, store.ModeCreate, store.MatchEmail)
		wantCounts(t, im, 1, 0, 2, 4)
		rows := importRows(t, c, im.ID)
		created := wantRow(t, rows, 2, store.OutcomeCreated, "")
		dup := wantRow(t, rows, 3, store.OutcomeSkipped, store.ReasonDuplicate)
		if dup.Reason.ID != old.ID || !strings.Contains(dup.ReasonText, fmt.Sprintf("#%d", old.ID)) {
			t.Errorf("duplicate of the existing lead: %+v %q", dup.Reason, dup.ReasonText)
		}
		bad := wantRow(t, rows, 4, store.OutcomeFailed, store.ReasonInvalid)
		if bad.Reason.Errors["company_email"] != "invalidEmail" || bad.ReasonText != "Email: Enter a valid email address." {
			t.Errorf("bad email: %+v %q", bad.Reason, bad.ReasonText)
		}
		unknown := wantRow(t, rows, 5, store.OutcomeFailed, store.ReasonUnknown)
		if unknown.Reason.Field != "lead_stage_id" || unknown.Reason.Value != "Nope" || unknown.ReasonText != `Stage: "Nope" is not in the list.` {
			t.Errorf("unknown stage: %+v %q", unknown.Reason, unknown.ReasonText)
		}
		again := wantRow(t, rows, 6, store.OutcomeSkipped, store.ReasonDuplicate)
		if again.Reason.ID != *created.RecordID {
			t.Errorf("in-file duplicate names %d, want %d", again.Reason.ID, *created.RecordID)
		}
		if r := wantRow(t, rows, 7, store.OutcomeFailed, store.ReasonInvalid); r.Reason.Errors["customer_name"] != "required" {
			t.Errorf("no name: %+v", r.Reason)
		}
		if r := wantRow(t, rows, 8, store.OutcomeFailed, store.ReasonInvalid); r.Reason.Errors["company_phone_number"] != "invalidPhone" {
			t.Errorf("bad phone: %+v", r.Reason)
		}
		a := leadByEmail(t, e, f, "a@x.test")
		if len(a) != 1 || a[0].ID != *created.RecordID || a[0].CustomerName != "New A" || a[0].LeadStageName != "Deals" ||
			a[0].CompanyPhoneNumber != "9000000010" || a[0].BillingAddress == nil || a[0].BillingAddress.City != "Chennai" ||
			a[0].LeadStatusName != "New lead" || a[0].CreatedBy == nil || *a[0].CreatedBy != f.Admin.ID {
			t.Fatalf("created lead: %+v", a)
		}
		hist, err := e.DB.System(f.Tenant.ID, 0).History(context.Background(), "lead", a[0].ID, 10)
		if err != nil || len(hist) != 1 || hist[0].Action != "create" || hist[0].ActorUserID == nil || *hist[0].ActorUserID != f.Admin.ID {
			t.Fatalf("journey of the created lead: %+v %v", hist, err)
		}

		// The report, from the API too: every row, its result and reason, then its cells.
		if recs := apptest.ExportCSV(t, c, fmt.Sprintf("/v1/api/import/report-import/%d", im.ID), ','); len(recs) != 8 ||
			recs[2][1] != "Skipped" || recs[2][2] != strconv.FormatInt(old.ID, 10) || recs[3][3] != "Email: Enter a valid email address." ||
			recs[3][5] != "not-an-email" {
			t.Errorf("report: %q", recs)
		}

		// Update only: matching leads are updated (empty cells keep their value); a row
		// with nothing new is skipped as unchanged; rows matching nothing are skipped.
		im = runCSV(t, c, store.EntityLead, modesCSV, store.ModeUpdate, store.MatchEmail)
		wantCounts(t, im, 0, 2, 4, 1)
		rows = importRows(t, c, im.ID)
		wantRow(t, rows, 2, store.OutcomeSkipped, store.ReasonUnchanged)
		if r := wantRow(t, rows, 3, store.OutcomeUpdated, ""); *r.RecordID != old.ID {
			t.Errorf("row 3 updated %d, want %d", *r.RecordID, old.ID)
		}
		wantRow(t, rows, 4, store.OutcomeSkipped, store.ReasonNotFound)
		wantRow(t, rows, 5, store.OutcomeFailed, store.ReasonUnknown)
		wantRow(t, rows, 6, store.OutcomeUpdated, "")
		wantRow(t, rows, 7, store.OutcomeSkipped, store.ReasonNotFound)
		wantRow(t, rows, 8, store.OutcomeSkipped, store.ReasonNotFound)
		o := leadByEmail(t, e, f, "old@x.test")
		if len(o) != 1 || o[0].CustomerName != "Old Renamed" || o[0].CompanyName != "Old Co" || o[0].LeadStageName != "Won" {
			t.Fatalf("updated lead: %+v", o)
		}
		if a := leadByEmail(t, e, f, "a@x.test"); a[0].CustomerName != "New A Again" || a[0].LeadStageName != "Deals" {
			t.Fatalf("second update: %+v", a[0])
		}

		// Upsert by phone: a row matching a phone updates, the others create; a phone two
		// leads share is ambiguous; an empty phone creates.
		seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerName: "Twin 1", CompanyEmail: "t1@x.test", CompanyPhoneNumber: "9111111111"}})
		seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerName: "Twin 2", CompanyEmail: "t2@x.test", CompanyPhoneNumber: "9111111111"}})
		upsert := "Name;Email;Mobile\n" +
			"A By Phone;a2@x.test;9000000010\n" + // 2: updates the lead of a@x.test
			"Twin;tw@x.test;9111111111\n" + // 3: ambiguous
			"Fresh;fresh@x.test;\n" + // 4: created
			"Fresh Phone;fp@x.test;9222222222\n" + // 5: created
			"Fresh Phone Twice;fp2@x.test;9222222222\n" // 6: updates row 5's lead
		im = runCSV(t, c, store.EntityLead, upsert, store.ModeUpsert, store.MatchPhone)
		wantCounts(t, im, 2, 2, 0, 1)
		rows = importRows(t, c, im.ID)
		if r := wantRow(t, rows, 2, store.OutcomeUpdated, ""); *r.RecordID != a[0].ID {
			t.Errorf("row 2 updated %d, want %d", *r.RecordID, a[0].ID)
		}
		if r := wantRow(t, rows, 3, store.OutcomeFailed, store.ReasonAmbiguous); r.Reason.Count != 2 {
			t.Errorf("ambiguous: %+v", r.Reason)
		}
		wantRow(t, rows, 4, store.OutcomeCreated, "")
		fresh := wantRow(t, rows, 5, store.OutcomeCreated, "")
		if r := wantRow(t, rows, 6, store.OutcomeUpdated, ""); *r.RecordID != *fresh.RecordID {
			t.Errorf("row 6 updated %d, want row 5's %d", *r.RecordID, *fresh.RecordID)
		}
		if got := leadByEmail(t, e, f, "a2@x.test"); len(got) != 1 || got[0].CustomerName != "A By Phone" {
			t.Fatalf("upserted by phone: %+v", got)
		}
		if got := leadByEmail(t, e, f, "fp2@x.test"); len(got) != 1 || got[0].CustomerName != "Fresh Phone Twice" {
			t.Fatalf("row 6: %+v", got)
		}
	})
}

func TestImportReadsBOMSemicolonsAndSuggestsColumns(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		data := apptest.BOM + "Full Name;E-Mail;company_email;Tel;Lead Source;Owner;Shipping Postcode;Comments;Extra\r\n" +
			"Zoé Martin;zoe@x.test;zoe2@x.test;0612345678;Referral;" + f.Admin.Email + ";75001;\"a; b, c\";x\r\n" +
			"Li Wei;li@x.test;;;;;;;\r\n"
		im := uploadCSV(t, c, store.EntityLead, "people.csv", data)
		wantHeader := []string{"Full Name", "E-Mail", "company_email", "Tel", "Lead Source", "Owner", "Shipping Postcode", "Comments", "Extra"}
		wantMap := []string{"customer_name", "company_email", "", "company_phone_number", "lead_source_id", "owner_id",
			"shipping_address.zip", "notes", ""}
		if im.Status != store.ImportUploaded || im.Delimiter != ";" || im.Encoding != "utf-8" || im.TotalRows != 2 ||
			strings.Join(im.Header, "|") != strings.Join(wantHeader, "|") || strings.Join(im.Mapping, "|") != strings.Join(wantMap, "|") {
			t.Fatalf("upload: %+v", im)
		}
		if len(im.Preview) != 2 || im.Preview[0][0] != "Zoé Martin" || im.Preview[0][7] != "a; b, c" || len(im.Preview[1]) != 9 {
			t.Fatalf("preview: %q", im.Preview)
		}
		var list struct {
			Data struct {
				Result []importData `json:"result"`
				Total  int          `json:"total"`
			} `json:"data"`
		}
		apptest.MustJSON(t, c.Get("/v1/api/import/list-import").Body, &list)
		if list.Data.Total != 1 || list.Data.Result[0].ID != im.ID || len(list.Data.Result[0].Preview) != 2 {
			t.Fatalf("list: %+v", list.Data)
		}
		// The column mapping can be changed: the second email column instead of the first.
		mapping := append([]string(nil), wantMap...)
		mapping[1], mapping[2] = "", "company_email"
		r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/run-import/%d", im.ID), map[string]any{"mode": "create", "match_key": "email", "mapping": mapping})
		if r.Status != http.StatusAccepted {
			t.Fatalf("run: %d %s", r.Status, r.Body)
		}
		done := waitImport(t, c, im.ID)
		wantCounts(t, done, 1, 0, 0, 1) // Li Wei has no email in the mapped column
		z := leadByEmail(t, e, f, "zoe2@x.test")
		if len(z) != 1 || z[0].CustomerName != "Zoé Martin" || z[0].LeadSourceName != "Referral" || z[0].OwnerID == nil ||
			*z[0].OwnerID != f.Admin.ID || z[0].ShippingAddress == nil || z[0].ShippingAddress.Zip != "75001" || z[0].Notes != "a; b, c" {
			t.Fatalf("imported: %+v", z)
		}
		// Running it again is refused.
		if r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/run-import/%d", im.ID), map[string]any{"mode": "create", "match_key": "email"}); r.Status != http.StatusConflict {
			t.Errorf("second run: %d %s", r.Status, r.Body)
		}

		// A mapping is checked: a field twice, an unknown field, a create without a name column,
		// an update whose key column is not mapped.
		im2 := uploadCSV(t, c, store.EntityLead, "x.csv", "a,b,c\n1,2,3\n")
		for _, tc := range []struct {
			mapping []string
			mode    string
			want    map[string]string
		}{
			{[]string{"company_email", "company_email", "customer_name"}, "create", map[string]string{"mapping.1": "taken"}},
			{[]string{"company_email", "shoe_size", "customer_name"}, "create", map[string]string{"mapping.1": "invalid"}},
			{[]string{"company_email", "", ""}, "upsert", map[string]string{"field.customer_name": "required"}},
			{[]string{"customer_name", "", ""}, "update", map[string]string{"match_key": "required"}},
			{[]string{"customer_name"}, "create", map[string]string{"mapping": "invalid"}},
		} {
			r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/run-import/%d", im2.ID), map[string]any{"mode": tc.mode, "match_key": "email", "mapping": tc.mapping})
			env := r.Env()
			if r.Status != 422 || len(env.Errors) != len(tc.want) {
				t.Errorf("%v %s: %d %s", tc.mapping, tc.mode, r.Status, r.Body)
				continue
			}
			for k, v := range tc.want {
				if env.Errors[k] != v {
					t.Errorf("%v %s: errors %v, want %s=%s", tc.mapping, tc.mode, env.Errors, k, v)
				}
			}
		}

		// Files that cannot be imported say why.
		for data, want := range map[string]string{"": "The file is empty.", "Name,Email\n": "The file has a header row but no data rows.",
			"\xff\xfeN\x00": `The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.`} {
			r := c.UploadFiles("/v1/api/import/create-import?entity=lead", "", apptest.Upload{Name: "bad.csv", Data: []byte(data)})
			if r.Status != 422 || r.Env().Message != want {
				t.Errorf("upload %q: %d %s", data, r.Status, r.Body)
			}
		}
		if r := c.UploadFiles("/v1/api/import/create-import?entity=shoe", "", apptest.Upload{Name: "x.csv", Data: []byte("a\n1\n")}); r.Status != 422 || r.Env().Errors["entity"] != "invalid" {
			t.Errorf("unknown entity: %d %s", r.Status, r.Body)
		}
		// A Windows-1252 file (an older spreadsheet app's CSV) is read too.
		im3 := uploadCSV(t, c, store.EntityLead, "w.csv", "Name;Email\nJos\xe9;jose@x.test\n")
		if im3.Encoding != "windows-1252" || im3.Preview[0][0] != "José" {
			t.Errorf("windows-1252: %+v", im3)
		}
	})
}

// leadState is what an undo must give back exactly.
func leadState(l *store.LeadView) string {
	addr := func(a *store.Address) string {
		if a == nil {
			return "nil"
		}
		return fmt.Sprintf("%+v", *a)
	}
	id := func(p *int64) string {
		if p == nil {
			return "nil"
		}
		return strconv.FormatInt(*p, 10)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s", l.CustomerTitle, l.CustomerName, l.CompanyName, l.CompanyEmail,
		l.CompanyDialCode, l.CompanyPhoneNumber, id(l.LeadStageID), id(l.LeadStatusID), id(l.LeadSourceID), id(l.LeadTypeID),
		id(l.CompanyTypeID), id(l.OwnerID), addr(l.BillingAddress), addr(l.ShippingAddress), l.Notes)
}

func TestImportUndoRestoresExactly(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		sales := e.User(f, "rep@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		ctx := context.Background()
		scope := e.DB.System(f.Tenant.ID, f.Admin.ID)
		deals := apptest.MasterID(t, e, f, store.KindStage, "Deals")
		hot := apptest.MasterID(t, e, f, store.KindType, "Hot")
		kept := seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerTitle: "Dr.", CustomerName: "Kept", CompanyName: "Kept Co",
			CompanyEmail: "kept@x.test", CompanyDialCode: "+91", CompanyPhoneNumber: "9333333333",
			OwnerID: &sales.ID, BillingAddress: &store.Address{FlatNo: "1", City: "Chennai", Country: "India"},
			Notes: "keep me",
		}, LeadStageID: &deals,
			LeadTypeID: &hot})
		before := leadState(kept)
		untouched := seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerName: "Untouched", CompanyEmail: "untouched@x.test"}})

		data := "Email,Name,Stage,Type,Owner,Billing City,Shipping Country,Notes\n" +
			"kept@x.test,Changed,Won,Cold," + f.Admin.Email + ",Pune,France,changed\n" +
			"new1@x.test,New One,,,,,,\n" +
			"new2@x.test,New Two,Lost,,,,,\n" +
			"kept@x.test,Changed Twice,,,,,,\n"
		im := runCSV(t, c, store.EntityLead, data, store.ModeUpsert, store.MatchEmail)
		wantCounts(t, im, 2, 2, 0, 0)
		after, err := scope.LeadView(ctx, kept.ID)
		if err != nil || after.CustomerName != "Changed Twice" || after.LeadStageName != "Won" || after.LeadTypeName != "Cold" ||
			*after.OwnerID != f.Admin.ID || after.BillingAddress.City != "Pune" || after.BillingAddress.FlatNo != "1" ||
			after.ShippingAddress.Country != "France" || after.Notes != "changed" {
			t.Fatalf("after import: %+v %v", after, err)
		}
		rows := importRows(t, c, im.ID)
		created := []int64{*rows[3].RecordID, *rows[4].RecordID}

		// Someone without delete permission on leads cannot undo it: the route refuses them
		// (403) before the import is even looked up.
		noDelete := e.User(f, "nodelete@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Create: auth.ScopeAll, Update: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}})
		if r := e.APIClient(noDelete.Email).Do("PATCH", fmt.Sprintf("/v1/api/import/undo-import/%d", im.ID), nil); r.Status != 403 {
			t.Errorf("undo without the delete permission: %d", r.Status)
		}

		r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/undo-import/%d", im.ID), nil)
		if r.Status != http.StatusAccepted || r.Env().Message != "Undo started" {
			t.Fatalf("undo: %d %s", r.Status, r.Body)
		}
		done := waitImport(t, c, im.ID)
		if done.Status != store.ImportUndone || done.Undone != 4 || done.Progress != 100 {
			t.Fatalf("undo: %+v", done)
		}
		restored, err := scope.LeadView(ctx, kept.ID)
		if err != nil || leadState(restored) != before {
			t.Fatalf("restored:\n%s\nwant\n%s (%v)", leadState(restored), before, err)
		}
		for _, id := range created {
			if _, err := scope.LeadView(ctx, id); err != store.ErrNotFound {
				t.Errorf("created lead %d still there: %v", id, err)
			}
		}
		if l, err := scope.LeadView(ctx, untouched.ID); err != nil || l.CustomerName != "Untouched" {
			t.Errorf("untouched lead: %+v %v", l, err)
		}
		hist, _ := scope.History(ctx, "lead", kept.ID, 20)
		undos, updates := 0, 0
		for _, h := range hist {
			switch h.Action {
			case "import_undo":
				undos++
				var after map[string]any
				apptest.MustJSON(t, *h.After, &after)
				if after["import_id"] != float64(im.ID) {
					t.Errorf("undo entry: %s", *h.After)
				}
			case "update":
				updates++
			}
		}
		if undos != 2 || updates != 4 { // two updates by the import, two restores
			t.Errorf("journey: %d import_undo, %d update entries", undos, updates)
		}
		for _, id := range created {
			hist, _ := scope.History(ctx, "lead", id, 5)
			if len(hist) < 2 || hist[0].Action != "import_undo" || hist[1].Action != "delete" {
				t.Errorf("journey of created lead %d: %+v", id, hist)
			}
		}
		rows = importRows(t, c, im.ID)
		for no, row := range rows {
			if !row.Undone {
				t.Errorf("row %d not marked undone", no)
			}
		}
		// It cannot be undone twice.
		if r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/undo-import/%d", im.ID), nil); r.Status != http.StatusConflict {
			t.Errorf("second undo: %d %s", r.Status, r.Body)
		}
	})
}

// A user limited to their own leads updates, and undoes, only those: another user's lead
// with the key is not found, another tenant's is never seen, and the owner cannot be given
// away, as in the form.
func TestImportUpdatesOnlyReachableLeads(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		ctx := context.Background()
		rep := e.User(f, "rep@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Delete: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		mine := seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerName: "Mine", CompanyEmail: "mine@x.test", OwnerID: &rep.ID, Notes: "mine"}})
		theirs := seedLead(t, e, f, store.LeadInput{Contact: store.Contact{CustomerName: "Theirs", CompanyEmail: "theirs@x.test", Notes: "theirs"}})
		g := e.Tenant("Globex")
		elsewhere := seedLead(t, e, g, store.LeadInput{Contact: store.Contact{CustomerName: "Elsewhere", CompanyEmail: "mine@x.test"}})
		c := e.APIClient(rep.Email)
		data := "Email,Name,Owner,Notes\n" +
			"mine@x.test,Mine Renamed,,\n" + // 2: updated
			"theirs@x.test,Theirs Renamed,,\n" + // 3: not reachable, so not found
			"mine@x.test,Mine Given," + f.Admin.Email + ",\n" + // 4: the owner cannot be someone else
			"MINE@x.test,,,new notes\n" // 5: updated again
		im := runCSV(t, c, store.EntityLead, data, store.ModeUpdate, store.MatchEmail)
		wantCounts(t, im, 0, 2, 1, 1)
		rows := importRows(t, c, im.ID)
		wantRow(t, rows, 2, store.OutcomeUpdated, "")
		wantRow(t, rows, 3, store.OutcomeSkipped, store.ReasonNotFound)
		if r := wantRow(t, rows, 4, store.OutcomeFailed, store.ReasonInvalid); r.Reason.Errors["owner_id"] != "invalid" {
			t.Errorf("owner given away: %+v", r.Reason)
		}
		wantRow(t, rows, 5, store.OutcomeUpdated, "")
		admin := e.DB.System(f.Tenant.ID, f.Admin.ID)
		if l, err := admin.LeadView(ctx, mine.ID); err != nil || l.CustomerName != "Mine Renamed" || l.Notes != "new notes" || *l.OwnerID != rep.ID {
			t.Errorf("own lead: %+v %v", l, err)
		}
		if l, err := admin.LeadView(ctx, theirs.ID); err != nil || leadState(l) != leadState(theirs) {
			t.Errorf("another user's lead changed: %+v %v", l, err)
		}
		if l, err := e.DB.System(g.Tenant.ID, g.Admin.ID).LeadView(ctx, elsewhere.ID); err != nil || leadState(l) != leadState(elsewhere) {
			t.Errorf("another tenant's lead changed: %+v %v", l, err)
		}
		if r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/undo-import/%d", im.ID), nil); r.Status != http.StatusAccepted {
			t.Fatalf("undo: %d %s", r.Status, r.Body)
		}
		if done := waitImport(t, c, im.ID); done.Status != store.ImportUndone || done.Undone != 2 {
			t.Fatalf("undo: %+v", done)
		}
		if l, err := admin.LeadView(ctx, mine.ID); err != nil || leadState(l) != leadState(mine) {
			t.Errorf("own lead after the undo: %+v %v", l, err)
		}
	})
}

func TestImportClientsByPhoneAndUndo(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		ctx := context.Background()
		scope := e.DB.System(f.Tenant.ID, f.Admin.ID)
		existing, err := scope.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Client Old", CompanyEmail: "client@x.test",
			CompanyPhoneNumber: "9444444444", Notes: "old",
		}})
		if err != nil {
			t.Fatal(err)
		}
		data := "Customer name,Email,Phone,Company type,Stage\n" +
			"Client New,client@x.test,94444-44444,Partnership,Won\n" +
			"Another,another@x.test,9555555555,,\n" +
			"Typo,typo@x.test,9666666666,Nope,\n"
		im := uploadCSV(t, c, store.EntityClient, "clients.csv", data)
		if strings.Join(im.Mapping, "|") != "customer_name|company_email|company_phone_number|company_type_id|" {
			t.Fatalf("client mapping: %q", im.Mapping)
		}
		r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/run-import/%d", im.ID), map[string]any{"mode": "upsert", "match_key": "phone"})
		if r.Status != http.StatusAccepted {
			t.Fatalf("run: %d %s", r.Status, r.Body)
		}
		wantCounts(t, waitImport(t, c, im.ID), 1, 1, 0, 1)
		got, err := scope.ClientView(ctx, existing.ID)
		if err != nil || got.CustomerName != "Client New" || got.CompanyTypeName != "Partnership" || got.Notes != "old" {
			t.Fatalf("updated client: %+v %v", got, err)
		}
		rows := importRows(t, c, im.ID)
		wantRow(t, rows, 4, store.OutcomeFailed, store.ReasonUnknown)
		newID := *wantRow(t, rows, 3, store.OutcomeCreated, "").RecordID

		if r := c.Do("PATCH", fmt.Sprintf("/v1/api/import/undo-import/%d", im.ID), nil); r.Status != http.StatusAccepted {
			t.Fatalf("undo: %d %s", r.Status, r.Body)
		}
		if done := waitImport(t, c, im.ID); done.Status != store.ImportUndone {
			t.Fatalf("undo: %+v", done)
		}
		got, err = scope.ClientView(ctx, existing.ID)
		if err != nil || got.CustomerName != "Client Old" || got.CompanyTypeID != nil || got.CompanyPhoneNumber != "9444444444" {
			t.Fatalf("restored client: %+v %v", got, err)
		}
		if _, err := scope.ClientView(ctx, newID); err != store.ErrNotFound {
			t.Errorf("created client still there: %v", err)
		}
	})
}

func TestImportTenantIsolationAndPermissions(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		im := runCSV(t, c, store.EntityLead, "Name,Email\nAna,ana@x.test\n", store.ModeCreate, store.MatchEmail)

		other := e.APIClient(e.Tenant("Globex").Admin.Email)
		colleague := e.APIClient(e.User(f, "colleague@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureLeads: {View: auth.ScopeAll, Create: auth.ScopeAll, Update: auth.ScopeAll, Delete: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}}).Email)
		id := strconv.FormatInt(im.ID, 10)
		for _, cl := range []*apptest.Client{other, colleague} {
			for _, p := range []string{"/v1/api/import/view-import/", "/v1/api/import/list-import-row/", "/v1/api/import/report-import/",
				"/imports/", "/imports/%s/report.csv", "/imports/%s/progress", "/imports/%s/undo"} {
				path := p + id
				if strings.Contains(p, "%s") {
					path = fmt.Sprintf(p, id)
				}
				if r := cl.Get(path); r.Status != 404 {
					t.Errorf("GET %s by another: %d", path, r.Status)
				}
			}
			for _, p := range []string{"/v1/api/import/run-import/", "/v1/api/import/undo-import/"} {
				if r := cl.Do("PATCH", p+id, map[string]any{"mode": "create"}); r.Status != 404 {
					t.Errorf("PATCH %s by another: %d", p, r.Status)
				}
			}
			if r := cl.Get("/v1/api/import/list-import"); r.Status != 200 || strings.Contains(r.Body, `"id":`+id+",") {
				t.Errorf("list by another: %d %s", r.Status, r.Body)
			}
		}

		// Without create permission on leads, no lead import; clients may still be allowed.
		viewer := e.APIClient(e.User(f, "viewer@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}, auth.FeatureClients: {View: auth.ScopeAll, Create: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}}).Email)
		if r := viewer.UploadFiles("/v1/api/import/create-import?entity=lead", "", apptest.Upload{Name: "a.csv", Data: []byte("Name,Email\nA,a@x.test\n")}); r.Status != 403 {
			t.Errorf("lead import without create: %d %s", r.Status, r.Body)
		}
		cim := uploadCSV(t, viewer, store.EntityClient, "c.csv", "Name,Email\nA,a@x.test\n")
		// Update modes need update permission as well.
		if r := viewer.Do("PATCH", "/v1/api/import/run-import/"+strconv.FormatInt(cim.ID, 10), map[string]any{"mode": "upsert", "match_key": "email"}); r.Status != 403 {
			t.Errorf("upsert without update: %d %s", r.Status, r.Body)
		}
		if r := viewer.Do("PATCH", "/v1/api/import/run-import/"+strconv.FormatInt(cim.ID, 10), map[string]any{"mode": "create", "match_key": "email"}); r.Status != 202 {
			t.Fatalf("create-only: %d %s", r.Status, r.Body)
		}
		if done := waitImport(t, viewer, cim.ID); done.Created != 1 {
			t.Fatalf("client import: %+v", done)
		}
		// Undo needs delete permission.
		if r := viewer.Do("PATCH", "/v1/api/import/undo-import/"+strconv.FormatInt(cim.ID, 10), nil); r.Status != 403 {
			t.Errorf("undo without delete: %d %s", r.Status, r.Body)
		}
		if r := viewer.Get("/imports/" + strconv.FormatInt(cim.ID, 10) + "/undo"); r.Status != 403 {
			t.Errorf("undo page without delete: %d", r.Status)
		}
		// Nobody signed in: 401.
		if r := e.Client().Get("/v1/api/import/list-import"); r.Status != 401 {
			t.Errorf("anonymous: %d", r.Status)
		}
		nothing := e.APIClient(e.User(f, "nothing@acme.test", map[auth.Feature]auth.Grant{}).Email)
		if r := nothing.Get("/imports/new"); r.Status != 403 {
			t.Errorf("new import page without permission: %d", r.Status)
		}
	})
}
