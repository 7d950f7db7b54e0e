package kit

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	kitview "crm/views/kit"
)

// dateTime is how plan times show: on the owner's clock, with the zone named next to it.
const dateTime = "2006-01-02 15:04"

func plans(rows []store.KeepInTouchView) []kitview.Plan {
	out := make([]kitview.Plan, 0, len(rows))
	for _, p := range rows {
		v := kitview.Plan{ID: p.ID, Type: string(p.Type), EventType: p.EventTypeName, Interval: string(p.Interval),
			Owner: p.OwnerName, Active: p.Active, Record: p.RecordName, RecordHref: p.Href(), Subject: p.Subject, Zone: p.TimeZone}
		if p.NextAt != nil {
			loc, err := time.LoadLocation(p.TimeZone)
			if err != nil || p.TimeZone == "" {
				loc, v.Zone = time.UTC, "UTC"
			}
			v.Next, v.NextISO = p.NextAt.In(loc).Format(dateTime), p.NextAt.UTC().Format(time.RFC3339)
		}
		out = append(out, v)
	}
	return out
}

// mayUpdate reports whether the caller may change the plans of the kind of record.
func mayUpdate(r *http.Request, e *store.Entity) bool {
	return web.Caller(r).Allows(e.Feature, auth.Update)
}

// Section renders the "Keep in touch" section of a lead's or client's page; the lead and
// client pages embed it.
func Section(r *http.Request, entity string, recordID int64) (templ.Component, error) {
	e := store.EntityNamed(entity)
	rows, _, err := web.Scope(r).KeepInTouchList(r.Context(), store.KitFilter{Entity: entity, RecordID: recordID, Limit: 100})
	if err != nil {
		return nil, err
	}
	back := e.Href(recordID) + "#keep-in-touch"
	s := kitview.Section{Plans: plans(rows), CanUpdate: mayUpdate(r, e), Back: back}
	if s.CanUpdate {
		if s.Form, err = form(r, newAction(e, recordID), "", back, map[string]string{}, map[string]string{}, false); err != nil {
			return nil, err
		}
	}
	return kitview.SectionView(s), nil
}

func newAction(e *store.Entity, id int64) string { return e.Href(id) + "/keep-in-touch" }

// form builds the add or edit form of a plan.
func form(r *http.Request, action, cancel, back string, values, errs map[string]string, edit bool) (kitview.Form, error) {
	ctx := r.Context()
	scope := web.Scope(r)
	f := kitview.Form{Action: action, Cancel: cancel, Back: back, Values: values, Errors: errs, Edit: edit}
	if f.Values["owner_id"] == "" {
		f.Values["owner_id"] = strconv.FormatInt(web.Caller(r).User.ID, 10)
	}
	for _, t := range store.KitTypes {
		f.Types = append(f.Types, components.Option{Value: string(t), Label: web.T(r, "kit.type."+string(t))})
	}
	for _, t := range store.KitIntervals {
		f.Intervals = append(f.Intervals, components.Option{Value: string(t), Label: web.T(r, "kit.interval."+string(t))})
	}
	ms, err := scope.Masters(ctx, store.KindEventType)
	if err != nil {
		return f, err
	}
	for _, m := range ms {
		f.EventTypes = append(f.EventTypes, components.Option{Value: strconv.FormatInt(m.ID, 10), Label: m.Name})
	}
	ts, err := scope.EmailTemplates(ctx)
	if err != nil {
		return f, err
	}
	for _, t := range ts {
		f.Templates = append(f.Templates, components.Option{Value: strconv.FormatInt(t.ID, 10), Label: t.Name})
	}
	users, err := scope.Users(ctx)
	if err != nil {
		return f, err
	}
	for _, u := range users {
		if u.Active {
			f.Owners = append(f.Owners, components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name})
		}
	}
	return f, nil
}

var formFields = []string{"type", "event_type_id", "interval_type", "start_at", "owner_id", "template_id", "subject", "note", "active", "next"}

// readForm decodes a posted plan form.
func readForm(w http.ResponseWriter, r *http.Request) (map[string]string, store.KeepInTouchInput, validate.Errors, error) {
	if err := web.ReadForm(w, r); err != nil {
		return nil, store.KeepInTouchInput{}, nil, err
	}
	v := map[string]string{}
	for _, k := range formFields {
		v[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	if v["active"] != "1" {
		v["active"] = "0"
	}
	active := v["active"] == "1"
	in := store.KeepInTouchInput{Type: store.KitType(v["type"]), Interval: store.KitInterval(v["interval_type"]),
		Start: v["start_at"], Subject: v["subject"], Note: v["note"], Active: &active}
	errs := validate.Errors{}
	for name, dst := range map[string]*int64{"event_type_id": &in.EventTypeID, "owner_id": &in.OwnerID, "template_id": &in.TemplateID} {
		if v[name] == "" {
			continue
		}
		n, err := strconv.ParseInt(v[name], 10, 64)
		if err != nil || n <= 0 {
			errs.Add(name, validate.KeyInvalid)
		}
		*dst = n
	}
	return v, in, errs, nil
}

// save reads a posted plan form and saves it: back with msgID flashed, or the form again
// (422) with the errors next to their fields.
func (h *Handler) save(w http.ResponseWriter, r *http.Request, title, action, cancel, msgID string, edit bool,
	do func(ctx context.Context, s store.Scope, in store.KeepInTouchInput) error) {
	v, in, errs, err := readForm(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := web.SafeNext(v["next"], cancel)
	if len(errs) == 0 {
		err = do(r.Context(), web.Scope(r), in)
		var ve validate.Errors
		if errors.As(err, &ve) {
			errs = ve
		} else if err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	if len(errs) > 0 {
		f, err := form(r, action, back, back, v, errs, edit)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Page(w, r, http.StatusUnprocessableEntity, title, kitview.FormPage(title, f))
		return
	}
	h.web.Flash(r, msgID)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// CreatePage adds a plan to the lead or client of the path (POST /leads/{id}/keep-in-touch).
func (h *Handler) CreatePage(entity string) http.HandlerFunc {
	e := store.EntityNamed(entity)
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		if err := web.Scope(r).Reachable(r.Context(), entity, id); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.save(w, r, web.T(r, "kit.add"), newAction(e, id), e.Href(id)+"#keep-in-touch", "kit.created", false,
			func(ctx context.Context, s store.Scope, in store.KeepInTouchInput) error {
				in.Entity, in.RecordID = entity, id
				_, err := s.CreateKeepInTouch(ctx, in)
				return err
			})
	}
}

func (h *Handler) planOf(r *http.Request) (*store.KeepInTouchView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).KeepInTouch(r.Context(), id)
}

// backOf is where a plan's page returns: the next the link carried, else the record's page.
func backOf(r *http.Request, p *store.KeepInTouchView) string {
	next := r.URL.Query().Get("next")
	if r.Method == http.MethodPost {
		next = r.PostFormValue("next")
	}
	return web.SafeNext(next, p.Href()+"#keep-in-touch")
}

// EditPage shows and saves a plan's edit form.
func (h *Handler) EditPage(w http.ResponseWriter, r *http.Request) {
	p, err := h.planOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	e, _ := p.Entity()
	if !mayUpdate(r, e) {
		h.web.Fail(w, r, store.ErrForbidden)
		return
	}
	title := web.T(r, "kit.editTitle")
	action := kitview.Href(p.ID, "edit")
	if r.Method == http.MethodGet {
		back := backOf(r, p)
		v := map[string]string{"type": string(p.Type), "interval_type": string(p.Interval), "start_at": p.StartLocal,
			"owner_id": strconv.FormatInt(p.OwnerID, 10), "subject": p.Subject, "note": p.Note, "active": "0"}
		if p.Active {
			v["active"] = "1"
		}
		if p.EventTypeID != nil {
			v["event_type_id"] = strconv.FormatInt(*p.EventTypeID, 10)
		}
		if p.TemplateID != nil {
			v["template_id"] = strconv.FormatInt(*p.TemplateID, 10)
		}
		f, err := form(r, action, back, back, v, map[string]string{}, true)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Page(w, r, http.StatusOK, title, kitview.FormPage(title, f))
		return
	}
	h.save(w, r, title, action, p.Href()+"#keep-in-touch", "kit.updated", true,
		func(ctx context.Context, s store.Scope, in store.KeepInTouchInput) error {
			_, err := s.UpdateKeepInTouch(ctx, p.ID, in)
			return err
		})
}

// ActivePage pauses (active=0) or resumes (active=1) a plan.
func (h *Handler) ActivePage(w http.ResponseWriter, r *http.Request) {
	h.action(w, r, func(ctx context.Context, s store.Scope, id int64) (string, error) {
		active := r.PostFormValue("active") == "1"
		_, err := s.SetKeepInTouchActive(ctx, id, active)
		if active {
			return "kit.resumed", err
		}
		return "kit.pausedDone", err
	})
}

// SendPage produces a plan's next occurrence now.
func (h *Handler) SendPage(w http.ResponseWriter, r *http.Request) {
	h.action(w, r, func(ctx context.Context, s store.Scope, id int64) (string, error) {
		_, err := s.SendKeepInTouchNow(ctx, id)
		if err == nil {
			h.woke()
		}
		return "kit.sent", err
	})
}

// action runs a posted action on a plan and goes back with its message; a refusal (no
// email address) is flashed as an error on the way back.
func (h *Handler) action(w http.ResponseWriter, r *http.Request, do func(ctx context.Context, s store.Scope, id int64) (string, error)) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	p, err := h.planOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	msg, err := do(r.Context(), web.Scope(r), p.ID)
	var refusal store.Refusal
	if errors.As(err, &refusal) {
		id, args := refusal.Refusal()
		h.web.Flash(r, id, args...)
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	} else {
		h.web.Flash(r, msg)
	}
	http.Redirect(w, r, backOf(r, p), http.StatusSeeOther)
}

// DeletePage asks, then deletes a plan.
func (h *Handler) DeletePage(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		if err := web.ReadForm(w, r); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	p, err := h.planOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := backOf(r, p)
	if r.Method == http.MethodGet {
		e, _ := p.Entity()
		if !mayUpdate(r, e) {
			h.web.Fail(w, r, store.ErrForbidden)
			return
		}
		label := web.T(r, "kit.type."+string(p.Type)) + " · " + web.T(r, "kit.interval."+string(p.Interval)) + " — " + p.RecordName
		h.web.Page(w, r, http.StatusOK, web.T(r, "kit.deleteTitle"), components.Confirm(components.ConfirmModel{
			Title: web.T(r, "kit.deleteTitle"), Message: web.T(r, "kit.deleteMessage"),
			Items: []components.Link{{Label: label}}, Action: kitview.Href(p.ID, "delete"),
			Hidden:  []components.Hidden{{Name: "next", Value: back}},
			Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: back, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
		return
	}
	if err := web.Scope(r).DeleteKeepInTouch(r.Context(), p.ID); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "kit.deleted")
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// ListPage is /keep-in-touch: every plan the caller may see, by next occurrence, filtered
// by type, owner and state.
func (h *Handler) ListPage(w http.ResponseWriter, r *http.Request) {
	f, err := filter(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	f.Entity, f.RecordID = "", 0
	scope := web.Scope(r)
	rows, total, err := scope.KeepInTouchList(r.Context(), f)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	q := r.URL.Query()
	l := kitview.ListPage{Plans: plans(rows), Total: components.Total(r.Context(), "kit.total", total, false), Back: "/keep-in-touch?" + q.Encode(),
		CanUpdate: web.Caller(r).Allows(auth.FeatureLeads, auth.Update) || web.Caller(r).Allows(auth.FeatureClients, auth.Update)}
	for _, t := range store.KitTypes {
		l.Types = append(l.Types, components.Option{Value: string(t), Label: web.T(r, "kit.type."+string(t)), Selected: q.Get("type") == string(t)})
	}
	users, err := scope.Users(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	for _, u := range users {
		v := strconv.FormatInt(u.ID, 10)
		l.Owners = append(l.Owners, components.Option{Value: v, Label: u.Name, Selected: q.Get("owner_id") == v})
	}
	l.Actives = []components.Option{{Value: "true", Label: web.T(r, "kit.active"), Selected: q.Get("active") == "true"},
		{Value: "false", Label: web.T(r, "kit.paused"), Selected: q.Get("active") == "false"}}
	page := max(f.Page, 1)
	pageHref := func(n int) string {
		qq := url.Values{}
		for k, vs := range q {
			qq[k] = vs
		}
		qq.Set("page", strconv.Itoa(n))
		return "/keep-in-touch?" + qq.Encode()
	}
	if page > 1 {
		l.PrevHref = pageHref(page - 1)
	}
	if int64(page*f.Limit) < total {
		l.NextHref = pageHref(page + 1)
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "kit.listTitle"), kitview.ListView(l))
}

// Block is the meeting dashboard of the home page (?meetings=team for the team's).
func Block(r *http.Request) (templ.Component, error) {
	d, err := web.Scope(r).MeetingDashboard(r.Context(), time.Now(), userLocation(r), r.URL.Query().Get("meetings") == "team")
	if err != nil {
		return nil, err
	}
	loc := userLocation(r)
	items := func(in []store.MeetingItem) []kitview.Item {
		out := make([]kitview.Item, 0, len(in))
		for _, it := range in {
			label := it.EventType
			if label == "" {
				label = web.T(r, "kit.type."+string(it.Type))
			}
			out = append(out, kitview.Item{Type: string(it.Type), Label: label, At: it.At.In(loc).Format(dateTime),
				AtISO: it.At.UTC().Format(time.RFC3339), Owner: it.OwnerName, Record: it.RecordName, RecordHref: it.Href})
		}
		return out
	}
	return kitview.DashboardBlock(kitview.Dashboard{Team: d.Team, MayTeam: d.MayTeam, Overdue: items(d.Overdue),
		Today: items(d.Today), ThisWeek: items(d.ThisWeek)}), nil
}
