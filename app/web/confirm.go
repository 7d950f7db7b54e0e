package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/store"
	"crm/app/validate"
)

// PageByID serves a page about one record: the id from the path's {id}, the view model
// from load, then the page. A malformed id or a failed load goes to Fail (another
// tenant's record is a 404 there).
func PageByID[M any](k *Kit, w http.ResponseWriter, r *http.Request, load func(*http.Request, int64) (M, error),
	page func(M) (title string, body templ.Component)) {
	id, err := PathID(r, "id")
	var m M
	if err == nil {
		m, err = load(r, id)
	}
	if err != nil {
		k.Fail(w, r, err)
		return
	}
	title, body := page(m)
	k.Page(w, r, http.StatusOK, title, body)
}

// MoveAndDelete is the submit of a two-step delete whose dependents move to another record
// first (a role's users to another role, a user's leads and clients to a new owner). It
// reads the target from Field, deletes, and on a refusal (a store.Refusal, or field errors)
// shows the confirmation again, with the reason and the posted target, at the refusal's
// status; once deleted it flashes Flash and goes to Done.
type MoveAndDelete[M any] struct {
	Field  string
	Delete func(r *http.Request, id, target int64) error
	// Load builds the confirmation's view model, as the GET step does.
	Load func(r *http.Request, id int64) (M, error)
	// Refused writes the reason and the posted target into the view model.
	Refused func(r *http.Request, m M, err error, reason string)
	Page    func(m M) (title string, body templ.Component)
	Flash   string
	Done    string
}

// Serve handles the POST.
func (d MoveAndDelete[M]) Serve(k *Kit, w http.ResponseWriter, r *http.Request) {
	id, err := PathID(r, "id")
	if err == nil {
		err = ReadForm(w, r)
	}
	if err != nil {
		k.Fail(w, r, err)
		return
	}
	target, _ := strconv.ParseInt(r.PostFormValue(d.Field), 10, 64)
	err = d.Delete(r, id, target)
	var refusal store.Refusal
	var ve validate.Errors
	if errors.As(err, &refusal) || errors.As(err, &ve) {
		m, lerr := d.Load(r, id)
		if lerr != nil {
			k.Fail(w, r, lerr)
			return
		}
		status, msgID, args, _ := Classify(err)
		if key := ve.First(d.Field); key != "" {
			msgID, args = "validation."+key, nil // the target's own error says more than "correct the form"
		}
		d.Refused(r, m, err, T(r, msgID, args...))
		title, body := d.Page(m)
		k.Page(w, r, status, title, body)
		return
	}
	if err != nil {
		k.Fail(w, r, err)
		return
	}
	k.Flash(r, d.Flash)
	http.Redirect(w, r, d.Done, http.StatusSeeOther)
}
