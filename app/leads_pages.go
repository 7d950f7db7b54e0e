package app

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	leadsview "crm/views/leads"
)

// The admin lead pages: the list with its bulk actions and saved views, the lead form (new,
// edit), the lead page with its journey and quick stage/status changes, deletion with a
// confirmation step, and the pipeline board. They call the same store functions as the
// JSON API and differ from it only in rendering.

// dialCodes are the dial codes the lead form offers. The spec reads them from the site
// setting user_dial_code_list; there are no site settings yet, so the list is fixed here
// until there are.
var dialCodes = []string{"+91", "+1", "+44", "+33", "+49", "+34", "+39", "+351", "+420", "+61"}

// leadFormLimit caps a lead form post. It allows a logo of twice the permitted size, so an
// oversized image still gets its inline error (and the rest of the form is kept) rather
// than a bare 413; the hidden copy of a kept logo fits as well.
const leadFormLimit = 2*maxLogoBytes + 256<<10

// leadFormFields are the plain fields of the lead form, by their form (and JSON) name.
var leadFormFields = []string{"customer_title", "customer_name", "company_name", "company_type_id", "company_email",
	"company_dial_code", "company_phone_number", "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id",
	"owner_id", "notes"}

// ownLeadsOnly reports whether the caller reaches only the leads they own or created.
func ownLeadsOnly(p *web.Principal) bool { return p.Perms[auth.FeatureLeads].Scope == auth.ScopeOwn }

// leadForm is what a posted lead form gives: the page state and the store's input.
type leadForm struct {
	view leadsview.Form
	in   store.LeadInput
}

// readLeadForm decodes a posted lead form, plain or multipart. Ids that are not numbers
// and a logo that is not an allowed image come back as field errors; the values are kept
// as typed for a re-render.
func (s *server) readLeadForm(w http.ResponseWriter, r *http.Request) (*leadForm, error) {
	r.Body = http.MaxBytesReader(w, r.Body, leadFormLimit)
	if err := r.ParseMultipartForm(4 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, err
		}
		return nil, web.BadRequest("error.form", err)
	}
	f := &leadForm{view: leadsview.Form{Values: map[string]string{}, Errors: map[string]string{}}}
	v, errs := f.view.Values, validate.Errors(f.view.Errors)
	for _, name := range leadFormFields {
		v[name] = r.PostFormValue(name)
	}
	for _, prefix := range []string{"billing_address", "shipping_address"} {
		for _, part := range leadsview.AddressFields {
			v[prefix+"."+part] = r.PostFormValue(prefix + "." + part)
		}
	}
	f.view.Confirmed = r.PostFormValue("confirm_duplicate") == "1"
	ref := func(name string) *int64 {
		raw := strings.TrimSpace(v[name])
		if raw == "" {
			return nil
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			errs.Add(name, validate.KeyInvalid)
			return nil
		}
		return &n
	}
	address := func(prefix string) *store.Address {
		a := store.Address{FlatNo: v[prefix+".flatNo"], Street: v[prefix+".street"], City: v[prefix+".city"],
			State: v[prefix+".state"], Zip: v[prefix+".zip"], Country: v[prefix+".country"]}
		if strings.TrimSpace(a.FlatNo+a.Street+a.City+a.State+a.Zip+a.Country) == "" {
			return nil
		}
		return &a
	}
	f.in = store.LeadInput{CustomerTitle: v["customer_title"], CustomerName: v["customer_name"],
		CompanyName: v["company_name"], CompanyEmail: v["company_email"], CompanyDialCode: v["company_dial_code"],
		CompanyPhoneNumber: v["company_phone_number"], CompanyTypeID: ref("company_type_id"), LeadTypeID: ref("lead_type_id"),
		LeadSourceID: ref("lead_source_id"), LeadStatusID: ref("lead_status_id"), LeadStageID: ref("lead_stage_id"),
		OwnerID: ref("owner_id"), BillingAddress: address("billing_address"), ShippingAddress: address("shipping_address"),
		Notes: v["notes"]}
	logo, err := uploadedLogo(r)
	if err != nil {
		var ve validate.Errors
		if !errors.As(err, &ve) {
			return nil, err
		}
		errs.Add("company_logo", ve["company_logo"])
	}
	if logo == nil && err == nil {
		if kept := r.PostFormValue("company_logo_kept"); kept != "" {
			if logo, err = parseLogo(kept); err != nil {
				logo = nil // a tampered copy: drop it
			}
		}
	}
	if logo != nil {
		f.in.Logo = logo
		f.view.KeptLogo = "data:" + logo.MediaType + ";base64," + base64.StdEncoding.EncodeToString(logo.Data)
	}
	return f, nil
}

// uploadedLogo reads the form's logo file, if one was chosen: at most 2048 KB, and by its
// bytes a PNG, JPEG, GIF or WebP image.
func uploadedLogo(r *http.Request) (*store.Logo, error) {
	if r.MultipartForm == nil || len(r.MultipartForm.File["company_logo"]) == 0 {
		return nil, nil
	}
	fh := r.MultipartForm.File["company_logo"][0]
	if fh.Size == 0 && fh.Filename == "" {
		return nil, nil
	}
	if fh.Size > maxLogoBytes {
		return nil, validate.Errors{"company_logo": "fileTooLarge"}
	}
	file, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxLogoBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, nil
	}
	if len(data) > maxLogoBytes {
		return nil, validate.Errors{"company_logo": "fileTooLarge"}
	}
	mt := http.DetectContentType(data)
	if !logoTypes[mt] {
		return nil, validate.Errors{"company_logo": "invalidImage"}
	}
	return &store.Logo{MediaType: mt, Data: data}, nil
}

// leadChoices loads the options of the lead form's selects.
func (s *server) leadChoices(ctx context.Context, scope store.Scope, p *web.Principal) (map[string][]components.Option, error) {
	out := map[string][]components.Option{}
	for name, kind := range map[string]store.MasterKind{"lead_stage_id": store.KindStage, "lead_status_id": store.KindStatus,
		"lead_source_id": store.KindSource, "lead_type_id": store.KindType, "company_type_id": store.KindBusinessType,
		"customer_title": store.KindTitle} {
		ms, err := scope.Masters(ctx, kind)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			value := strconv.FormatInt(m.ID, 10)
			if kind == store.KindTitle {
				value = m.Name // a lead keeps its title's text
			}
			out[name] = append(out[name], components.Option{Value: value, Label: m.Name})
		}
	}
	for _, c := range dialCodes {
		out["company_dial_code"] = append(out["company_dial_code"], components.Option{Value: c, Label: c})
	}
	if ownLeadsOnly(p) {
		out["owner_id"] = []components.Option{{Value: strconv.FormatInt(p.User.ID, 10), Label: p.User.Name}}
		return out, nil
	}
	users, err := scope.Users(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		out["owner_id"] = append(out["owner_id"], components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name})
	}
	return out, nil
}

// keepChoice adds the form's current value to a select when it is not among the options
// (a title renamed since, an inactive owner), so an edit does not silently change it.
func keepChoice(choices map[string][]components.Option, name, value string) {
	if value == "" {
		return
	}
	for _, o := range choices[name] {
		if o.Value == value {
			return
		}
	}
	choices[name] = append(choices[name], components.Option{Value: value, Label: value})
}

// renderLeadForm shows the lead form with its choices, with status (422 when refused).
func (s *server) renderLeadForm(w http.ResponseWriter, r *http.Request, status int, f leadsview.Form) {
	p := web.Caller(r)
	choices, err := s.leadChoices(r.Context(), p.Scope(), p)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	keepChoice(choices, "customer_title", f.Values["customer_title"])
	keepChoice(choices, "company_dial_code", f.Values["company_dial_code"])
	f.Choices = choices
	f.OwnerLocked = ownLeadsOnly(p)
	title := web.T(r, "leadsPage.newTitle")
	if f.ID != 0 {
		title = web.T(r, "leadsPage.editTitle", "ID", f.ID)
	}
	s.web.Page(w, r, status, title, leadsview.FormPage(f))
}

func (s *server) handleLeadNewPage(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	scope := p.Scope()
	f := leadsview.Form{Action: "/leads/new", CancelHref: "/leads", Values: map[string]string{}, Errors: map[string]string{}}
	settings, err := scope.StageSettings(r.Context())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if settings.DefaultStageID != 0 {
		f.Values["lead_stage_id"] = strconv.FormatInt(settings.DefaultStageID, 10)
	}
	for name, kind := range map[string]store.MasterKind{"lead_status_id": store.KindStatus, "lead_source_id": store.KindSource} {
		ms, err := scope.Masters(r.Context(), kind)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		for _, m := range ms {
			if m.IsDefault {
				f.Values[name] = strconv.FormatInt(m.ID, 10)
			}
		}
	}
	f.Values["owner_id"] = strconv.FormatInt(p.User.ID, 10)
	s.renderLeadForm(w, r, http.StatusOK, f)
}

// duplicates names the reachable leads that share the form's email or phone.
func duplicates(ctx context.Context, scope store.Scope, in store.LeadInput, exceptID int64) ([]store.LeadRef, error) {
	return scope.DuplicateLeads(ctx, strings.ToLower(strings.TrimSpace(in.CompanyEmail)), strings.TrimSpace(in.CompanyPhoneNumber), exceptID)
}

// errDryRun rolls back a change made only to learn whether the store would accept it.
var errDryRun = errors.New("dry run")

// wouldRefuse runs change in a transaction that is always rolled back and returns the
// validation errors the store gives, so a duplicate warning can show them at once.
func wouldRefuse(ctx context.Context, scope store.Scope, change func(tx store.Scope) error) (validate.Errors, error) {
	var ve validate.Errors
	err := scope.Tx(ctx, func(tx store.Scope) error {
		if err := change(tx); err != nil {
			return err
		}
		return errDryRun
	})
	switch {
	case errors.As(err, &ve):
		return ve, nil
	case errors.Is(err, errDryRun):
		return nil, nil
	}
	return nil, err
}

// warnDuplicates shows the form with the duplicates and whatever else the store would
// refuse: 200 when only the warning stands in the way, 422 otherwise.
func (s *server) warnDuplicates(w http.ResponseWriter, r *http.Request, f *leadForm, dups []store.LeadRef, change func(tx store.Scope) error) {
	ve, err := wouldRefuse(r.Context(), web.Scope(r), change)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	f.view.Duplicates = dups
	status := http.StatusOK
	for k, v := range ve {
		validate.Errors(f.view.Errors).Add(k, v)
		status = http.StatusUnprocessableEntity
	}
	s.renderLeadForm(w, r, status, f.view)
}

// refused re-renders the form when err is a validation error; it reports whether it did.
func (s *server) refused(w http.ResponseWriter, r *http.Request, f *leadForm, err error) bool {
	var ve validate.Errors
	if !errors.As(err, &ve) {
		return false
	}
	for k, v := range ve {
		validate.Errors(f.view.Errors).Add(k, v)
	}
	s.renderLeadForm(w, r, http.StatusUnprocessableEntity, f.view)
	return true
}

func (s *server) handleLeadCreatePage(w http.ResponseWriter, r *http.Request) {
	scope := web.Scope(r)
	f, err := s.readLeadForm(w, r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	f.view.Action, f.view.CancelHref = "/leads/new", "/leads"
	if len(f.view.Errors) > 0 {
		s.renderLeadForm(w, r, http.StatusUnprocessableEntity, f.view)
		return
	}
	if !f.view.Confirmed {
		dups, err := duplicates(r.Context(), scope, f.in, 0)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		if len(dups) > 0 {
			s.warnDuplicates(w, r, f, dups, func(tx store.Scope) error {
				_, _, err := tx.CreateLead(r.Context(), f.in, "", "")
				return err
			})
			return
		}
	}
	lead, _, err := scope.CreateLead(r.Context(), f.in, "", "")
	if err != nil {
		if !s.refused(w, r, f, err) {
			s.web.Fail(w, r, err)
		}
		return
	}
	s.web.Flash(r, "leads.created")
	http.Redirect(w, r, leadsview.LeadHref(lead.ID), http.StatusSeeOther)
}

// leadOf loads the lead named by the path, as the caller may see it (404 otherwise).
func (s *server) leadOf(r *http.Request) (*store.LeadView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).LeadView(r.Context(), id)
}

func idText(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// leadValues fills the form from a stored lead.
func leadValues(l *store.LeadView) map[string]string {
	v := map[string]string{"customer_title": l.CustomerTitle, "customer_name": l.CustomerName, "company_name": l.CompanyName,
		"company_type_id": idText(l.CompanyTypeID), "company_email": l.CompanyEmail, "company_dial_code": l.CompanyDialCode,
		"company_phone_number": l.CompanyPhoneNumber, "lead_type_id": idText(l.LeadTypeID), "lead_source_id": idText(l.LeadSourceID),
		"lead_status_id": idText(l.LeadStatusID), "lead_stage_id": idText(l.LeadStageID), "owner_id": idText(l.OwnerID),
		"notes": l.Notes}
	for prefix, a := range map[string]*store.Address{"billing_address": l.BillingAddress, "shipping_address": l.ShippingAddress} {
		if a == nil {
			continue
		}
		for part, val := range map[string]string{"flatNo": a.FlatNo, "street": a.Street, "city": a.City, "state": a.State, "zip": a.Zip, "country": a.Country} {
			v[prefix+"."+part] = val
		}
	}
	return v
}

func (s *server) handleLeadEditPage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	href := leadsview.LeadHref(lead.ID)
	s.renderLeadForm(w, r, http.StatusOK, leadsview.Form{ID: lead.ID, Action: href + "/edit", CancelHref: href,
		Values: leadValues(lead), Errors: map[string]string{}, HasLogo: lead.HasLogo})
}

func (s *server) handleLeadUpdatePage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	f, err := s.readLeadForm(w, r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	href := leadsview.LeadHref(lead.ID)
	f.view.ID, f.view.Action, f.view.CancelHref, f.view.HasLogo = lead.ID, href+"/edit", href, lead.HasLogo
	if len(f.view.Errors) > 0 {
		s.renderLeadForm(w, r, http.StatusUnprocessableEntity, f.view)
		return
	}
	// Warn only about an email or phone that changes: a lead already sharing them was accepted.
	check := f.in
	if strings.EqualFold(strings.TrimSpace(check.CompanyEmail), lead.CompanyEmail) {
		check.CompanyEmail = ""
	}
	if strings.TrimSpace(check.CompanyPhoneNumber) == lead.CompanyPhoneNumber {
		check.CompanyPhoneNumber = ""
	}
	if !f.view.Confirmed {
		dups, err := duplicates(r.Context(), scope, check, lead.ID)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		if len(dups) > 0 {
			s.warnDuplicates(w, r, f, dups, func(tx store.Scope) error {
				_, err := tx.UpdateLead(r.Context(), lead.ID, f.in)
				return err
			})
			return
		}
	}
	if _, err := scope.UpdateLead(r.Context(), lead.ID, f.in); err != nil {
		if !s.refused(w, r, f, err) {
			s.web.Fail(w, r, err)
		}
		return
	}
	s.web.Flash(r, "leads.updated")
	http.Redirect(w, r, href, http.StatusSeeOther)
}

// journeyPageSize is how many journey entries the lead page shows at a time.
const journeyPageSize = 20

func (s *server) handleLeadPage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	p := web.Caller(r)
	scope := p.Scope()
	ctx := r.Context()
	v := leadsview.View{Lead: lead, CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete)}
	if v.CanUpdate {
		if v.Stages, err = scope.Masters(ctx, store.KindStage); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		if v.Statuses, err = scope.Masters(ctx, store.KindStatus); err != nil {
			s.web.Fail(w, r, err)
			return
		}
	}
	page := max(int(web.IntParam(r, "journey_page")), 1)
	rows, total, err := scope.Journey(ctx, lead.ID, page, journeyPageSize)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	v.Journey, v.JourneyTotal = leadsview.Journey(rows), total
	href := func(n int) string {
		return leadsview.LeadHref(lead.ID) + "?journey_page=" + strconv.Itoa(n) + "#journey"
	}
	v.JourneyPager = components.Pager{Label: web.T(r, "leadsPage.journeyPages"), Prev: web.T(r, "paging.newer"), Next: web.T(r, "paging.older")}
	if page > 1 {
		v.JourneyPager.PrevHref = href(page - 1)
	}
	if int64(page*journeyPageSize) < total {
		v.JourneyPager.NextHref = href(page + 1)
	}
	if v.Extras, err = s.leadExtras(r, lead); err != nil { // app/lead_extras_pages.go
		s.web.Fail(w, r, err)
		return
	}
	title := lead.CustomerName
	if lead.CompanyName != "" {
		title += " · " + lead.CompanyName
	}
	s.web.Page(w, r, http.StatusOK, title, leadsview.ViewPage(v))
}

// handleLeadFieldPage is a quick change from a small form: a stage or status button on the
// lead page, or a card's stage select on the board. It goes back where it came from.
func (s *server) handleLeadFieldPage(field store.LeadField) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		lead, err := s.leadOf(r) // another tenant's lead is not found, whatever the value
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		id := lead.ID
		r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
		if err := r.ParseForm(); err != nil {
			s.web.Fail(w, r, web.BadRequest("error.form", err))
			return
		}
		value, _ := strconv.ParseInt(r.PostFormValue(string(field)), 10, 64)
		if err := web.Scope(r).SetLeadField(r.Context(), id, field, value); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		s.web.Flash(r, "leads.updated")
		http.Redirect(w, r, web.SafeNext(r.PostFormValue("back"), leadsview.LeadHref(id)), http.StatusSeeOther)
	}
}

func (s *server) handleLeadDeletePage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	href := leadsview.LeadHref(lead.ID)
	label := "#" + strconv.FormatInt(lead.ID, 10) + " " + lead.CustomerName
	if lead.CompanyName != "" {
		label += " — " + lead.CompanyName
	}
	s.web.Page(w, r, http.StatusOK, web.T(r, "leadsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
		Title: web.T(r, "leadsPage.deleteTitle"), Message: web.T(r, "leadsPage.deleteMessage", "Count", 1),
		Items: []components.Link{{Href: href, Label: label}}, Action: href + "/delete",
		Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: href, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
}

func (s *server) handleLeadDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteLead(r.Context(), id); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.removeDocumentFiles(r, store.EntityLead, id)
	s.web.Flash(r, "leads.deleted")
	http.Redirect(w, r, "/leads", http.StatusSeeOther)
}

// --- The lead list -------------------------------------------------------------------

// listFilters are the list's id filters: the URL parameter and where the query keeps it.
var listFilters = []struct {
	name string
	ids  func(*store.LeadQuery) *[]int64
	kind store.MasterKind // "" for the owner
}{
	{"stage_id", func(q *store.LeadQuery) *[]int64 { return &q.StageIDs }, store.KindStage},
	{"status_id", func(q *store.LeadQuery) *[]int64 { return &q.StatusIDs }, store.KindStatus},
	{"source_id", func(q *store.LeadQuery) *[]int64 { return &q.SourceIDs }, store.KindSource},
	{"type_id", func(q *store.LeadQuery) *[]int64 { return &q.TypeIDs }, store.KindType},
	{"owner_id", func(q *store.LeadQuery) *[]int64 { return &q.OwnerIDs }, ""},
}

// formIDs reads ids given as repeated values, a comma list or the bracketed form; values
// that are not ids are left out.
func formIDs(values []string) []int64 {
	var out []int64
	for _, raw := range values {
		raw = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(raw), "["), "]")
		for _, part := range strings.Split(raw, ",") {
			if id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64); err == nil && id > 0 {
				out = append(out, id)
			}
		}
	}
	return out
}

// listQuery reads the list's state from a query string: the store's query, the values
// the page's links keep (only those that mean something), and the errors of the dates.
func listQuery(in url.Values) (store.LeadQuery, url.Values, map[string]string) {
	q := store.LeadQuery{Search: strings.TrimSpace(in.Get("search")), After: in.Get("after")}
	norm, errs := url.Values{}, map[string]string{}
	if q.Search != "" {
		norm.Set("search", q.Search)
	}
	if srt := strings.ToLower(in.Get("sort")); srt == store.SortName || slices.Contains(store.LeadSorts, srt) {
		q.Sort = srt
		norm.Set("sort", srt)
	}
	if o := strings.ToLower(in.Get("order")); o == "asc" || o == "desc" {
		q.Order = o
		norm.Set("order", o)
	}
	if l := in.Get("limit"); slices.Contains(leadsview.PageSizes, l) {
		q.Limit, _ = strconv.Atoi(l)
		norm.Set("limit", l)
	}
	for _, f := range listFilters {
		ids := formIDs(in[f.name])
		*f.ids(&q) = ids
		for _, id := range ids {
			norm.Add(f.name, strconv.FormatInt(id, 10))
		}
	}
	sent, bad := web.CreatedRange(in, &q.CreatedFrom, &q.CreatedTo)
	for name, raw := range sent {
		norm.Set(name, raw)
	}
	maps.Copy(errs, bad)
	if q.After != "" {
		norm.Set("after", q.After)
	}
	return q, norm, errs
}

// leadList loads everything the list page shows for a query string.
func (s *server) leadList(r *http.Request, in url.Values) (*leadsview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := listQuery(in)
	page, err := scope.ListLeads(ctx, q)
	var ve validate.Errors
	if errors.As(err, &ve) && q.After != "" {
		// A cursor of another sort, or a mangled one: start from the first page.
		q.After = ""
		norm.Del("after")
		page, err = scope.ListLeads(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	m := &leadsview.List{Query: norm, Page: page, Errors: errs, Choices: map[string][]components.Option{},
		CanCreate: p.Perms.Allows(auth.FeatureLeads, auth.Create), CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete)}
	m.Sort, m.Desc = store.SortID, true
	switch q.Sort {
	case "", store.SortRecent:
	case store.SortName:
		m.Sort, m.Desc = store.SortCustomer, false
	default:
		m.Sort, m.Desc = q.Sort, false
	}
	if q.Order != "" {
		m.Desc = q.Order == "desc"
	}
	m.Filtered = q.Search != "" || !q.CreatedFrom.IsZero() || !q.CreatedTo.IsZero() || len(errs) > 0
	for _, f := range listFilters {
		m.Filtered = m.Filtered || len(*f.ids(&q)) > 0
		if f.kind == "" {
			continue
		}
		ms, err := scope.Masters(ctx, f.kind)
		if err != nil {
			return nil, err
		}
		for _, mm := range ms {
			m.Choices[f.name] = append(m.Choices[f.name], components.Option{Value: strconv.FormatInt(mm.ID, 10), Label: mm.Name})
		}
	}
	m.Choices["bulk_lead_stage_id"] = m.Choices["stage_id"]
	m.Choices["bulk_lead_status_id"] = m.Choices["status_id"]
	users, err := scope.Users(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		o := components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name}
		m.Choices["owner_id"] = append(m.Choices["owner_id"], o)
		if !ownLeadsOnly(p) || u.ID == p.User.ID {
			m.Choices["bulk_owner_id"] = append(m.Choices["bulk_owner_id"], o)
		}
	}
	if m.SavedViews, err = scope.SavedViews(ctx); err != nil {
		return nil, err
	}
	m.Pager = components.Pager{Label: web.T(r, "paging.label"), First: web.T(r, "paging.first"), Next: web.T(r, "paging.next"),
		Target: leadsview.ResultsID}
	if q.After != "" {
		m.Pager.FirstHref = m.Href()
	}
	if page.Next != "" {
		m.Pager.NextHref = m.Href("after", page.Next)
	}
	return m, nil
}

// renderList shows the list page, or only its results when htmx asks for them.
func (s *server) renderList(w http.ResponseWriter, r *http.Request, status int, m *leadsview.List) {
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == leadsview.ResultsID {
		s.web.Render(w, r, status, leadsview.ResultsFragment(*m))
		return
	}
	s.web.Page(w, r, status, web.T(r, "leadsPage.title"), leadsview.ListPage(*m))
}

func (s *server) handleLeadsPage(w http.ResponseWriter, r *http.Request) {
	m, err := s.leadList(r, r.URL.Query())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.renderList(w, r, http.StatusOK, m)
}

// atList makes a refused post render as the list page it came from (its address is what
// the language switch returns to).
func atList(r *http.Request, back string) (*http.Request, url.Values) {
	u, err := url.Parse(back)
	if err != nil || u.Path != "/leads" {
		u = &url.URL{Path: "/leads"}
	}
	r2 := r.Clone(r.Context())
	r2.URL = u
	r2.Header.Del("HX-Request")
	return r2, u.Query()
}

// listRefusal re-renders the list at back with a message where the refused form was.
func (s *server) listRefusal(w http.ResponseWriter, r *http.Request, back string, set func(*leadsview.List)) {
	r2, q := atList(r, back)
	m, err := s.leadList(r2, q)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	set(m)
	s.renderList(w, r2, http.StatusUnprocessableEntity, m)
}

// bulkFields are the fields a bulk change may set.
var bulkFields = map[string]store.LeadField{"lead_stage_id": store.FieldStage, "lead_status_id": store.FieldStatus, "owner_id": store.FieldOwner}

func (s *server) handleLeadsBulkUpdate(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	back := web.SafeNext(r.PostFormValue("back"), "/leads")
	ids := formIDs(r.PostForm["ids"])
	name := r.PostFormValue("field")
	field, ok := bulkFields[name]
	value, _ := strconv.ParseInt(r.PostFormValue(name), 10, 64)
	refuse := func(msg string) {
		s.listRefusal(w, r, back, func(m *leadsview.List) { m.BulkError = msg })
	}
	switch {
	case len(ids) == 0:
		refuse(web.T(r, "leadsPage.selectNone"))
		return
	case !ok || value <= 0:
		refuse(web.T(r, "leadsPage.chooseValue"))
		return
	}
	n, err := web.Scope(r).BulkSetLeadField(r.Context(), ids, field, value)
	var ve validate.Errors
	if errors.As(err, &ve) {
		for _, key := range ve {
			refuse(web.T(r, "validation."+key))
			return
		}
	}
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "leads.bulkUpdated", "Count", n)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleLeadsBulkDelete deletes the selected leads in two steps: the first post shows
// what would go, the confirmed one deletes.
func (s *server) handleLeadsBulkDelete(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	back := web.SafeNext(r.PostFormValue("back"), "/leads")
	ids := formIDs(r.PostForm["ids"])
	if len(ids) == 0 {
		s.listRefusal(w, r, back, func(m *leadsview.List) { m.BulkError = web.T(r, "leadsPage.selectNone") })
		return
	}
	if len(ids) > store.MaxBulk {
		s.listRefusal(w, r, back, func(m *leadsview.List) { m.BulkError = web.T(r, "validation.maxlength") })
		return
	}
	scope := web.Scope(r)
	if r.PostFormValue("confirm") != "1" {
		c := components.ConfirmModel{Title: web.T(r, "leadsPage.bulkDeleteTitle"), Action: "/leads/bulk/delete",
			Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: back, Cancel: web.T(r, "leadsPage.cancel"), Danger: true,
			Hidden: []components.Hidden{{Name: "back", Value: back}, {Name: "confirm", Value: "1"}}}
		for _, id := range ids {
			l, err := scope.LeadView(r.Context(), id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			} else if err != nil {
				s.web.Fail(w, r, err)
				return
			}
			label := "#" + strconv.FormatInt(l.ID, 10) + " " + l.CustomerName
			if l.CompanyName != "" {
				label += " — " + l.CompanyName
			}
			c.Items = append(c.Items, components.Link{Href: leadsview.LeadHref(l.ID), Label: label})
			c.Hidden = append(c.Hidden, components.Hidden{Name: "ids", Value: strconv.FormatInt(l.ID, 10)})
		}
		if len(c.Items) == 0 {
			s.web.Fail(w, r, web.ErrNotFound)
			return
		}
		c.Message = web.T(r, "leadsPage.deleteMessage", "Count", len(c.Items))
		s.web.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
		return
	}
	deleted, err := scope.DeleteLeads(r.Context(), ids)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	for _, id := range deleted {
		s.removeDocumentFiles(r, store.EntityLead, id)
	}
	s.web.Flash(r, "leads.bulkDeleted", "Count", len(deleted))
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// --- Saved views ---------------------------------------------------------------------

func (s *server) handleSavedViewSavePage(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	name, query := r.PostFormValue("name"), strings.TrimPrefix(r.PostFormValue("query"), "?")
	_, norm, _ := listQuery(parseQuery(query))
	norm.Del("after")
	v, err := web.Scope(r).SaveView(r.Context(), name, norm.Encode())
	var ve validate.Errors
	if errors.As(err, &ve) {
		s.listRefusal(w, r, web.QueryHref("/leads", norm), func(m *leadsview.List) {
			m.SaveName = name
			for _, key := range ve {
				m.SaveError = key
			}
			if key, ok := ve["name"]; ok {
				m.SaveError = key
			}
		})
		return
	}
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "views.saved")
	http.Redirect(w, r, leadsview.SavedViewHref(*v), http.StatusSeeOther)
}

func parseQuery(q string) url.Values {
	v, _ := url.ParseQuery(q)
	return v
}

func (s *server) handleSavedViewDeletePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteSavedView(r.Context(), id); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "views.deleted")
	http.Redirect(w, r, "/leads", http.StatusSeeOther)
}

// --- The pipeline board --------------------------------------------------------------

// boardColumnSize is how many cards a column loads at a time.
const boardColumnSize = 50

// board starts the board's view model: every stage as a move choice.
func (s *server) board(r *http.Request, stages []store.Master) leadsview.Board {
	p := web.Caller(r)
	b := leadsview.Board{CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update), Now: time.Now()}
	for _, st := range stages {
		b.Stages = append(b.Stages, components.Option{Value: strconv.FormatInt(st.ID, 10), Label: st.Name})
	}
	return b
}

func (s *server) handleBoardPage(w http.ResponseWriter, r *http.Request) {
	if web.IsFragment(r) {
		s.web.PageWithScript(w, r, http.StatusOK, "", nil, "")
		return
	}
	ctx := r.Context()
	scope := web.CallerFrom(ctx).Scope()
	stages, err := scope.Masters(ctx, store.KindStage)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	b := s.board(r, stages)
	for _, st := range stages {
		page, err := scope.ListLeads(ctx, store.LeadQuery{StageIDs: []int64{st.ID}, Limit: boardColumnSize})
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		b.Columns = append(b.Columns, leadsview.BoardColumn{Stage: st, Page: page, MoreHref: leadsview.MoreHref(st.ID, page.Next)})
	}
	s.web.PageWithScript(w, r, http.StatusOK, web.T(r, "board.title"), leadsview.BoardPage(b), "board.js")
}

// handleBoardMore serves a column's next cards: appended by htmx, or as a page of their own.
func (s *server) handleBoardMore(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	scope := web.CallerFrom(ctx).Scope()
	stage, err := scope.Master(ctx, store.KindStage, web.IntParam(r, "stage_id"))
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	page, err := scope.ListLeads(ctx, store.LeadQuery{StageIDs: []int64{stage.ID}, Limit: boardColumnSize, After: r.URL.Query().Get("after")})
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	stages, err := scope.Masters(ctx, store.KindStage)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	b := s.board(r, stages)
	more := leadsview.MoreHref(stage.ID, page.Next)
	w.Header().Add("Vary", "HX-Request")
	if r.Header.Get("HX-Request") == "true" {
		s.web.Render(w, r, http.StatusOK, leadsview.MoreFragment(b, stage.ID, page.Rows, more))
		return
	}
	s.web.Page(w, r, http.StatusOK, stage.Name+" · "+web.T(r, "board.title"), leadsview.MorePage(b, *stage, page.Rows, more))
}
