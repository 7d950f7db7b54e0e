package roles

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
	"crm/views/components"
	rolesview "crm/views/roles"
)

// TeamsPage is GET /teams.
func (h *Handler) TeamsPage(w http.ResponseWriter, r *http.Request) {
	h.renderTeams(w, r, http.StatusOK, "", "")
}

func (h *Handler) renderTeams(w http.ResponseWriter, r *http.Request, status int, name, key string) {
	p := web.Caller(r)
	rows, err := p.Scope().Teams(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m := rolesview.Teams{Teams: rows, CanCreate: p.Allows(auth.FeatureUsers, auth.Create), AddName: name, AddError: key}
	h.web.Page(w, r, status, web.T(r, "roles.teams"), rolesview.TeamsPage(m, p.Allows(auth.FeatureRoles, auth.View)))
}

// TeamCreatePage is POST /teams.
func (h *Handler) TeamCreatePage(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name := r.PostFormValue("name")
	t, err := web.Scope(r).CreateTeam(r.Context(), name)
	if key, ok := nameError(err); ok {
		h.renderTeams(w, r, http.StatusUnprocessableEntity, name, key)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "teams.created")
	http.Redirect(w, r, rolesview.TeamHref(t.ID), http.StatusSeeOther)
}

// team is a team page's model: the team and the tenant's users not in it.
func (h *Handler) team(r *http.Request, id int64) (*rolesview.Team, error) {
	p := web.Caller(r)
	t, err := p.Scope().TeamView(r.Context(), id)
	if err != nil {
		return nil, err
	}
	users, err := p.Scope().Users(r.Context())
	if err != nil {
		return nil, err
	}
	m := &rolesview.Team{Team: t, CanUpdate: p.Allows(auth.FeatureUsers, auth.Update), CanDelete: p.Allows(auth.FeatureUsers, auth.Delete),
		NameInput: t.Name}
	for _, u := range users {
		if !slices.ContainsFunc(t.Users, func(m2 store.MemberRef) bool { return m2.ID == u.ID }) {
			m.Others = append(m.Others, components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name + " (" + u.Email + ")"})
		}
	}
	return m, nil
}

// TeamPage is GET /teams/{id}.
func (h *Handler) TeamPage(w http.ResponseWriter, r *http.Request) {
	web.PageByID(h.web, w, r, h.team, func(m *rolesview.Team) (string, templ.Component) {
		return m.Team.Name + " · " + web.T(r, "roles.teams"), rolesview.TeamPage(*m)
	})
}

// TeamRenamePage is POST /teams/{id}.
func (h *Handler) TeamRenamePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name := r.PostFormValue("name")
	_, err = web.Scope(r).RenameTeam(r.Context(), id, name)
	if key, ok := nameError(err); ok {
		m, err := h.team(r, id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		m.NameInput, m.NameError = name, key
		h.web.Page(w, r, http.StatusUnprocessableEntity, m.Team.Name, rolesview.TeamPage(*m))
		return
	}
	h.done(w, r, err, "teams.updated", rolesview.TeamHref(id))
}

// done answers a team form: the error page, or the flash and back to next.
func (h *Handler) done(w http.ResponseWriter, r *http.Request, err error, msgID, next string) {
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, msgID)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// TeamAddMemberPage is POST /teams/{id}/members.
func (h *Handler) TeamAddMemberPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	uid, _ := strconv.ParseInt(r.PostFormValue("user_id"), 10, 64)
	_, err = web.Scope(r).AddTeamMember(r.Context(), id, uid)
	h.done(w, r, err, "teams.memberAdded", rolesview.TeamHref(id))
}

// TeamRemoveMemberPage is POST /teams/{id}/members/{user}/remove.
func (h *Handler) TeamRemoveMemberPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	uid, err := web.PathID(r, "user")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	_, err = web.Scope(r).RemoveTeamMember(r.Context(), id, uid)
	h.done(w, r, err, "teams.memberRemoved", rolesview.TeamHref(id))
}

// TeamDeletePage is POST /teams/{id}/delete (its members stay users; only the team goes).
func (h *Handler) TeamDeletePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.done(w, r, web.Scope(r).DeleteTeam(r.Context(), id), "teams.deleted", "/teams")
}
