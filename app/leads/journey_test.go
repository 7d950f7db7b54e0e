package leads_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/store"
)

// journeyCount is the "(n)" the journey's heading shows.
var journeyCount = regexp.MustCompile(`id="journey-title">[^<]*<span class="muted">\((\d+)\)</span>`)

// The lead page's journey names every kind of entry in every language, and its count is the
// number of entries it lists: a quick stage change (recorded as an update and a stage entry)
// counts once, as it shows once.
func TestLeadJourneyCountsWhatItListsInEveryLanguage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := apptest.NewLead(t, api, "Ana Journey")
		lead := fmt.Sprintf("/leads/%d", id)
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		converted := apptest.MasterID(t, e, f, store.KindStatus, "Converted")
		b.Form(lead+"/stage", url.Values{"lead_stage_id": {strconv.FormatInt(won, 10)}}).WantStatus(303)
		b.Form(lead+"/status", url.Values{"lead_status_id": {strconv.FormatInt(converted, 10)}}).WantStatus(303)
		if r := b.UploadFiles(lead+"/documents", "contract", apptest.Upload{Name: "c.pdf", Data: apptest.PDFBytes}); r.Status != 303 {
			t.Fatalf("upload: %d %.300s", r.Status, r.Body)
		}
		due := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
		api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": id, "title": "Call", "due_at": due}).WantStatus(201)
		b.Form(lead+"/convert", url.Values{}).WantStatus(303)

		for _, locale := range []string{"cs_CZ", "de_DE", "en_AU", "en_US", "es_ES", "fr_FR", "it_IT", "pt_PT"} {
			b.Form("/language", url.Values{"locale": {locale}}).WantStatus(303)
			page := b.Get(lead).WantStatus(200)
			if strings.Contains(page.Body, "leadsPage.action.") {
				i := strings.Index(page.Body, "leadsPage.action.")
				t.Errorf("%s: untranslated action %q", locale, page.Body[i:min(i+40, len(page.Body))])
			}
			m := journeyCount.FindStringSubmatch(page.Body)
			listed := strings.Count(page.Body, "<li data-action=")
			if m == nil || m[1] != strconv.Itoa(listed) {
				t.Errorf("%s: journey heading %v, %d entries listed", locale, m, listed)
			}
			for _, action := range []string{"create", "stage", "status", "document", "reminder", "convert"} {
				if !strings.Contains(page.Body, `<li data-action="`+action+`"`) {
					t.Errorf("%s: no %s entry", locale, action)
				}
			}
		}
	})
}
