package leads

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"crm/app/auth"
	"crm/app/contact"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	leadsview "crm/views/leads"
)

// leadFormLimit caps a lead form post. It allows a logo of twice the permitted size, so an
// oversized image still gets its inline error (and the rest of the form is kept) rather
// than a bare 413; the hidden copy of a kept logo fits as well.
const leadFormLimit = 2*maxLogoBytes + 256<<10

// leadFormFields are the plain fields of the lead form, by their form (and JSON) name.
var leadFormFields = []string{"customer_title", "customer_name", "company_name", "company_type_id", "company_email",
	"company_dial_code", "company_phone_number", "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id",
	"owner_id", "notes"}

// ownLeadsOnly reports whether the caller reaches only the leads they own or created.
func ownLeadsOnly(p *web.Principal) bool { return p.OwnOnly(auth.FeatureLeads) }

// leadForm is what a posted lead form gives: the page state and the store's input.
type leadForm struct {
	view leadsview.Form
	in   store.LeadInput
}

// readLeadForm decodes a posted lead form, plain or multipart. Ids that are not numbers
// and a logo that is not an allowed image come back as field errors; the values are kept
// as typed for a re-render.
func (h *Handler) readLeadForm(w http.ResponseWriter, r *http.Request) (*leadForm, error) {
	r.Body = http.MaxBytesReader(w, r.Body, leadFormLimit)
	if err := web.ReadMultipartForm(r, 4<<20); err != nil {
		return nil, err
	}
	f := &leadForm{view: leadsview.Form{Values: contact.PostedValues(r, leadFormFields), Errors: map[string]string{}}}
	v, errs := f.view.Values, validate.Errors(f.view.Errors)
	f.view.Confirmed = r.PostFormValue("confirm_duplicate") == "1"
	f.in = store.LeadInput{Contact: contact.FromForm(v, errs), LeadTypeID: contact.FormID(v, errs, "lead_type_id"),
		LeadSourceID: contact.FormID(v, errs, "lead_source_id"), LeadStatusID: contact.FormID(v, errs, "lead_status_id"),
		LeadStageID: contact.FormID(v, errs, "lead_stage_id")}
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
func (h *Handler) leadChoices(ctx context.Context, scope store.Scope, p *web.Principal) (map[string][]components.Option, error) {
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
	for _, c := range contact.DialCodes {
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

// renderLeadForm shows the lead form with its choices, with status (422 when refused).
func (h *Handler) renderLeadForm(w http.ResponseWriter, r *http.Request, status int, f leadsview.Form) {
	p := web.Caller(r)
	choices, err := h.leadChoices(r.Context(), p.Scope(), p)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	contact.KeepChoice(choices, "customer_title", f.Values["customer_title"])
	contact.KeepChoice(choices, "company_dial_code", f.Values["company_dial_code"])
	f.Choices = choices
	f.OwnerLocked = ownLeadsOnly(p)
	title := web.T(r, "leadsPage.newTitle")
	if f.ID != 0 {
		title = web.T(r, "leadsPage.editTitle", "ID", f.ID)
	}
	h.web.Page(w, r, status, title, leadsview.FormPage(f))
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
func (h *Handler) warnDuplicates(w http.ResponseWriter, r *http.Request, f *leadForm, dups []store.LeadRef, change func(tx store.Scope) error) {
	ve, err := wouldRefuse(r.Context(), web.Scope(r), change)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	f.view.Duplicates = dups
	status := http.StatusOK
	for k, v := range ve {
		validate.Errors(f.view.Errors).Add(k, v)
		status = http.StatusUnprocessableEntity
	}
	h.renderLeadForm(w, r, status, f.view)
}

// refused re-renders the form when err is a validation error; it reports whether it did.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, f *leadForm, err error) bool {
	var ve validate.Errors
	if !errors.As(err, &ve) {
		return false
	}
	for k, v := range ve {
		validate.Errors(f.view.Errors).Add(k, v)
	}
	h.renderLeadForm(w, r, http.StatusUnprocessableEntity, f.view)
	return true
}

// leadValues fills the form from a stored lead.
func leadValues(l *store.LeadView) map[string]string {
	v := contact.FormValues(l.Contact)
	for name, id := range map[string]*int64{"lead_type_id": l.LeadTypeID, "lead_source_id": l.LeadSourceID,
		"lead_status_id": l.LeadStatusID, "lead_stage_id": l.LeadStageID} {
		v[name] = contact.IDText(id)
	}
	return v
}
