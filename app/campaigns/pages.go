package campaigns

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	view "crm/views/campaigns"
	"crm/views/components"
)

// TemplatesPage is GET /settings/templates.
func (h *Handler) TemplatesPage(w http.ResponseWriter, r *http.Request) {
	s := web.Scope(r)
	ts, err := s.EmailTemplates(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var sends []store.EmailSend
	if p := web.Caller(r).Perms; p.Allows(auth.FeatureLeads, auth.Update) {
		if sends, err = s.EmailSends(r.Context(), 10); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "campaigns.title"), view.ListPage(view.List{Templates: ts, Sends: sends,
		CanCreate: web.Caller(r).Perms.Allows(auth.FeatureSettings, auth.Create)}))
}

// form is a template form for the caller: what they may do, the kinds they may preview.
func (h *Handler) form(r *http.Request, id int64) view.Form {
	p := web.Caller(r).Perms
	f := view.Form{ID: id, Variants: map[string][2]string{}, Errors: map[string]string{}, PreviewEntity: store.EntityLead}
	if id == 0 {
		f.CanSave = p.Allows(auth.FeatureSettings, auth.Create)
	} else {
		f.CanSave, f.CanDelete = p.Allows(auth.FeatureSettings, auth.Update), p.Allows(auth.FeatureSettings, auth.Delete)
	}
	for _, e := range store.Entities {
		if p.Allows(e.Feature, auth.View) {
			f.CanPreview = append(f.CanPreview, e.Name)
		}
	}
	if len(f.CanPreview) > 0 && !slices.Contains(f.CanPreview, f.PreviewEntity) {
		f.PreviewEntity = f.CanPreview[0]
	}
	return f
}

// NewTemplatePage is GET /settings/templates/new.
func (h *Handler) NewTemplatePage(w http.ResponseWriter, r *http.Request) {
	h.web.Page(w, r, http.StatusOK, web.T(r, "campaigns.new"), view.FormPage(h.form(r, 0)))
}

// TemplatePage is GET /settings/templates/{id}.
func (h *Handler) TemplatePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	t, err := web.Scope(r).EmailTemplate(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	f := h.form(r, id)
	f.Name, f.Subject, f.Body = t.Name, t.Subject, t.Body
	for _, v := range t.Variants {
		f.Variants[v.Locale] = [2]string{v.Subject, v.Body}
	}
	h.web.Page(w, r, http.StatusOK, t.Name, view.FormPage(f))
}

// readTemplate reads a template form; a field the form reader refuses is a field error.
func readTemplate(w http.ResponseWriter, r *http.Request) (store.EmailTemplateInput, validate.Errors, error) {
	err := web.ReadForm(w, r)
	var ve validate.Errors
	if err != nil && !errors.As(err, &ve) {
		return store.EmailTemplateInput{}, nil, err
	}
	f := r.PostForm
	in := store.EmailTemplateInput{Name: f.Get("name"), Subject: f.Get("subject"), Body: f.Get("body")}
	for _, l := range i18n.Locales {
		sub, body := f.Get(store.VariantField("subject", l)), f.Get(store.VariantField("body", l))
		if sub != "" || body != "" {
			in.Variants = append(in.Variants, store.EmailTemplateVariantInput{Locale: l, Subject: sub, Body: body})
		}
	}
	return in, ve, nil
}

// CreateTemplatePage is POST /settings/templates/new.
func (h *Handler) CreateTemplatePage(w http.ResponseWriter, r *http.Request) { h.save(w, r, 0) }

// UpdateTemplatePage is POST /settings/templates/{id}.
func (h *Handler) UpdateTemplatePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.save(w, r, id)
}

func (h *Handler) save(w http.ResponseWriter, r *http.Request, id int64) {
	in, ve, err := readTemplate(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	s := web.Scope(r)
	var t *store.EmailTemplate
	switch {
	case len(ve) > 0:
		err = ve
	case id == 0:
		t, err = s.CreateEmailTemplate(r.Context(), in)
	default:
		t, err = s.UpdateEmailTemplate(r.Context(), id, in)
	}
	if errors.As(err, &ve) {
		f := h.form(r, id)
		f.Name, f.Subject, f.Body = r.PostForm.Get("name"), r.PostForm.Get("subject"), r.PostForm.Get("body")
		for _, l := range i18n.Locales {
			f.Variants[l] = [2]string{r.PostForm.Get(store.VariantField("subject", l)), r.PostForm.Get(store.VariantField("body", l))}
		}
		for k, v := range ve {
			f.Errors[k] = v
		}
		h.web.Page(w, r, http.StatusUnprocessableEntity, web.T(r, "campaigns.title"), view.FormPage(f))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if id == 0 {
		h.web.Flash(r, "templates.created")
	} else {
		h.web.Flash(r, "templates.updated")
	}
	http.Redirect(w, r, view.Href(t.ID), http.StatusSeeOther)
}

// DeleteTemplatePage is GET (confirm) and POST (delete) /settings/templates/{id}/delete.
func (h *Handler) DeleteTemplatePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	s := web.Scope(r)
	t, err := s.EmailTemplate(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if r.Method == http.MethodPost {
		if err := s.DeleteEmailTemplate(r.Context(), id); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Flash(r, "templates.deleted")
		http.Redirect(w, r, view.ListPath, http.StatusSeeOther)
		return
	}
	c := components.ConfirmModel{Title: web.T(r, "campaigns.deleteTitle"), Message: web.T(r, "campaigns.deleteAsk", "Name", t.Name),
		Action: view.Href(id) + "/delete", Confirm: web.T(r, "campaigns.delete"), CancelHref: view.Href(id),
		Cancel: web.T(r, "campaigns.cancel"), Danger: true}
	h.web.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
}

// PreviewFragment is POST /settings/templates/preview: the form's texts rendered for the
// chosen lead or client (htmx swaps it in); a refusal is listed in the fragment.
func (h *Handler) PreviewFragment(w http.ResponseWriter, r *http.Request) {
	in, ve, err := readTemplate(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	p := previewPayload{EmailTemplateInput: in, Entity: r.PostForm.Get("preview_entity")}
	p.RecordID, _ = strconv.ParseInt(r.PostForm.Get("preview_id"), 10, 64)
	var m view.Preview
	if len(ve) > 0 {
		err = ve
	} else if p.RecordID <= 0 {
		err = validate.Errors{"preview_id": validate.KeyRequired}
	} else {
		m.Email, err = h.preview(r, web.Scope(r), p)
	}
	switch {
	case errors.As(err, &ve):
		for k, v := range ve {
			m.Errors = append(m.Errors, previewLabel(r, k)+": "+web.T(r, "validation."+v))
		}
		slices.Sort(m.Errors)
	case errors.Is(err, store.ErrNotFound):
		m.Errors = []string{web.T(r, "campaigns.noRecord")}
	case err != nil:
		h.web.Fail(w, r, err)
		return
	}
	h.web.Render(w, r, http.StatusOK, view.PreviewFragment(m))
}

// previewLabel names a field of the form in an error.
func previewLabel(r *http.Request, field string) string {
	for _, l := range i18n.Locales {
		for _, f := range []string{"subject", "body"} {
			if field == store.VariantField(f, l) {
				return web.T(r, "campaigns."+f) + " (" + web.T(r, "language."+l) + ")"
			}
		}
	}
	switch field {
	case "name", "subject", "body", "preview_id":
		return web.T(r, "campaigns.label."+field)
	}
	return field
}

// BulkEmailPage is POST /leads/bulk/email, from the lead list's bulk tools: the ticked
// leads, or (nothing ticked) every lead the list view's filters match, counted for the
// confirmation: who gets it, who is skipped.
func (h *Handler) BulkEmailPage(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m, err := h.confirmModel(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "campaigns.sendTitle"), view.ConfirmSend(*m))
}

// confirmModel reads the recipients of a bulk email form and counts them.
func (h *Handler) confirmModel(r *http.Request) (*view.SendConfirm, error) {
	back := web.SafeNext(r.PostFormValue("back"), "/leads")
	if u, err := url.Parse(back); err != nil || u.Path != "/leads" {
		back = "/leads"
	}
	ids, err := web.FormIDs(r, "ids")
	if err != nil {
		return nil, err
	}
	s := web.Scope(r)
	m := &view.SendConfirm{Back: back, IDs: ids}
	if _, has := r.PostForm["query"]; has || len(ids) == 0 {
		m.All = true
		m.Query = r.PostFormValue("query")
		if !has {
			u, _ := url.Parse(back)
			m.Query = u.RawQuery
		}
		if m.IDs, err = matching(r.Context(), s, m.Query); err != nil {
			return nil, err
		}
	}
	if m.Audience, err = s.SendAudience(r.Context(), m.IDs); err != nil {
		return nil, err
	}
	ts, err := s.EmailTemplates(r.Context())
	if err != nil {
		return nil, err
	}
	chosen := r.PostFormValue("template_id")
	for _, t := range ts {
		v := strconv.FormatInt(t.ID, 10)
		m.Templates = append(m.Templates, components.Option{Value: v, Label: t.Name, Selected: v == chosen})
	}
	return m, nil
}

// BulkEmailSend is POST /leads/bulk/email/send: the confirmed send starts in the
// background; off to its report. No template chosen shows the confirmation again.
func (h *Handler) BulkEmailSend(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m, err := h.confirmModel(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	tid, _ := strconv.ParseInt(r.PostFormValue("template_id"), 10, 64)
	s := web.Scope(r)
	var send *store.EmailSend
	if tid <= 0 {
		err = validate.Errors{"template_id": validate.KeyRequired}
	} else {
		send, err = s.CreateEmailSend(r.Context(), tid, m.IDs)
	}
	var ve validate.Errors
	if errors.As(err, &ve) {
		m.Error = web.T(r, "campaigns.chooseTemplate")
		if _, ok := ve["ids"]; ok {
			m.Error = web.T(r, "campaigns.noLeads")
		}
		h.web.Page(w, r, http.StatusUnprocessableEntity, web.T(r, "campaigns.sendTitle"), view.ConfirmSend(*m))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.start(s.TenantID, s.UserID, send.ID)
	h.web.Flash(r, "campaigns.started")
	http.Redirect(w, r, view.SendHref(send.ID), http.StatusSeeOther)
}

// ReportPage is GET /emails/sends/{id}: a send's progress and counts.
func (h *Handler) ReportPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	send, err := web.Scope(r).EmailSend(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "campaigns.reportTitle", "Name", send.TemplateName), view.ReportPage(view.Report{Send: send}))
}
