package leads

import (
	"net/http"
	"strconv"
	"strings"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
	"crm/views/components"
	leadsview "crm/views/leads"
)

// The admin lead pages: the list with its bulk actions and saved views, the lead form (new,
// edit), the lead page with its journey and quick stage/status changes, deletion with a
// confirmation step, and the pipeline board. They call the same store functions as the
// JSON API and differ from it only in rendering.

func (h *Handler) LeadNewPage(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	scope := p.Scope()
	f := leadsview.Form{Action: "/leads/new", CancelHref: "/leads", Values: map[string]string{}, Errors: map[string]string{}}
	settings, err := scope.StageSettings(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if settings.DefaultStageID != 0 {
		f.Values["lead_stage_id"] = strconv.FormatInt(settings.DefaultStageID, 10)
	}
	for name, kind := range map[string]store.MasterKind{"lead_status_id": store.KindStatus, "lead_source_id": store.KindSource} {
		ms, err := scope.Masters(r.Context(), kind)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		for _, m := range ms {
			if m.IsDefault {
				f.Values[name] = strconv.FormatInt(m.ID, 10)
			}
		}
	}
	f.Values["owner_id"] = strconv.FormatInt(p.User.ID, 10)
	h.renderLeadForm(w, r, http.StatusOK, f)
}

func (h *Handler) LeadCreatePage(w http.ResponseWriter, r *http.Request) {
	scope := web.Scope(r)
	f, err := h.readLeadForm(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	f.view.Action, f.view.CancelHref = "/leads/new", "/leads"
	if len(f.view.Errors) > 0 {
		h.renderLeadForm(w, r, http.StatusUnprocessableEntity, f.view)
		return
	}
	if !f.view.Confirmed {
		dups, err := duplicates(r.Context(), scope, f.in, 0)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		if len(dups) > 0 {
			h.warnDuplicates(w, r, f, dups, func(tx store.Scope) error {
				_, _, err := tx.CreateLead(r.Context(), f.in, "", "")
				return err
			})
			return
		}
	}
	lead, _, err := scope.CreateLead(r.Context(), f.in, "", "")
	if err != nil {
		if !h.refused(w, r, f, err) {
			h.web.Fail(w, r, err)
		}
		return
	}
	h.web.Flash(r, "leads.created")
	http.Redirect(w, r, leadsview.LeadHref(lead.ID), http.StatusSeeOther)
}

// leadOf loads the lead named by the path, as the caller may see it (404 otherwise).
func (h *Handler) leadOf(r *http.Request) (*store.LeadView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).LeadView(r.Context(), id)
}

func (h *Handler) LeadEditPage(w http.ResponseWriter, r *http.Request) {
	lead, err := h.leadOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	href := leadsview.LeadHref(lead.ID)
	h.renderLeadForm(w, r, http.StatusOK, leadsview.Form{ID: lead.ID, Action: href + "/edit", CancelHref: href,
		Values: leadValues(lead), Errors: map[string]string{}, HasLogo: lead.HasLogo})
}

func (h *Handler) LeadUpdatePage(w http.ResponseWriter, r *http.Request) {
	lead, err := h.leadOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	f, err := h.readLeadForm(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	href := leadsview.LeadHref(lead.ID)
	f.view.ID, f.view.Action, f.view.CancelHref, f.view.HasLogo = lead.ID, href+"/edit", href, lead.HasLogo
	if len(f.view.Errors) > 0 {
		h.renderLeadForm(w, r, http.StatusUnprocessableEntity, f.view)
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
			h.web.Fail(w, r, err)
			return
		}
		if len(dups) > 0 {
			h.warnDuplicates(w, r, f, dups, func(tx store.Scope) error {
				_, err := tx.UpdateLead(r.Context(), lead.ID, f.in)
				return err
			})
			return
		}
	}
	if _, err := scope.UpdateLead(r.Context(), lead.ID, f.in); err != nil {
		if !h.refused(w, r, f, err) {
			h.web.Fail(w, r, err)
		}
		return
	}
	h.web.Flash(r, "leads.updated")
	http.Redirect(w, r, href, http.StatusSeeOther)
}

// journeyPageSize is how many journey entries the lead page shows at a time.
const journeyPageSize = 20

func (h *Handler) LeadPage(w http.ResponseWriter, r *http.Request) {
	lead, err := h.leadOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	p := web.Caller(r)
	scope := p.Scope()
	ctx := r.Context()
	v := leadsview.View{Lead: lead, CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete)}
	if v.CanUpdate {
		if v.Stages, err = scope.Masters(ctx, store.KindStage); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		if v.Statuses, err = scope.Masters(ctx, store.KindStatus); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	page := max(int(web.IntParam(r, "journey_page")), 1)
	rows, total, err := scope.Journey(ctx, lead.ID, page, journeyPageSize)
	if err != nil {
		h.web.Fail(w, r, err)
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
	if v.Extras, err = h.leadExtras(r, lead); err != nil { // extras.go
		h.web.Fail(w, r, err)
		return
	}
	title := lead.CustomerName
	if lead.CompanyName != "" {
		title += " · " + lead.CompanyName
	}
	h.web.Page(w, r, http.StatusOK, title, leadsview.ViewPage(v))
}

// LeadFieldPage is a quick change from a small form: a stage or status button on the
// lead page, or a card's stage select on the board. It goes back where it came from.
func (h *Handler) LeadFieldPage(field store.LeadField) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		lead, err := h.leadOf(r) // another tenant's lead is not found, whatever the value
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		id := lead.ID
		r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
		if err := r.ParseForm(); err != nil {
			h.web.Fail(w, r, web.BadRequest("error.form", err))
			return
		}
		value, _ := strconv.ParseInt(r.PostFormValue(string(field)), 10, 64)
		if err := web.Scope(r).SetLeadField(r.Context(), id, field, value); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Flash(r, "leads.updated")
		http.Redirect(w, r, web.SafeNext(r.PostFormValue("back"), leadsview.LeadHref(id)), http.StatusSeeOther)
	}
}

func (h *Handler) LeadDeletePage(w http.ResponseWriter, r *http.Request) {
	lead, err := h.leadOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	href := leadsview.LeadHref(lead.ID)
	label := "#" + strconv.FormatInt(lead.ID, 10) + " " + lead.CustomerName
	if lead.CompanyName != "" {
		label += " — " + lead.CompanyName
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "leadsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
		Title: web.T(r, "leadsPage.deleteTitle"), Message: web.T(r, "leadsPage.deleteMessage", "Count", 1),
		Items: []components.Link{{Href: href, Label: label}}, Action: href + "/delete",
		Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: href, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
}

func (h *Handler) LeadDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteLead(r.Context(), id); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.documents.RemoveFiles(r, store.EntityLead, id)
	h.web.Flash(r, "leads.deleted")
	http.Redirect(w, r, "/leads", http.StatusSeeOther)
}

// --- The lead list -------------------------------------------------------------------
