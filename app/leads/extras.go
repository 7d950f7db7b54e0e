package leads

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/kit"
	"crm/app/reminders"
	"crm/app/store"
	"crm/app/web"
	clientsview "crm/views/clients"
)

// leadExtras renders the client, documents and reminders sections of a lead page.
func (h *Handler) leadExtras(r *http.Request, lead *store.LeadView) (templ.Component, error) {
	p := web.Caller(r)
	scope := p.Scope()
	base := "/leads/" + strconv.FormatInt(lead.ID, 10)
	x := clientsview.LeadExtras{LeadID: lead.ID,
		CanConvert: p.Perms.Allows(auth.FeatureClients, auth.Create) && p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanRemind:  p.Perms.Allows(auth.FeatureLeads, auth.Create),
		CanUpdate:  p.Perms.Allows(auth.FeatureLeads, auth.Update), CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete)}
	if c, err := scope.ClientOfLead(r.Context(), lead.ID); err == nil {
		x.ClientID = c.ID
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	var err error
	if x.Documents, err = h.documents.Section(r, store.EntityLead, lead.ID, base); err != nil {
		return nil, err
	}
	rows, err := scope.Reminders(r.Context(), lead.ID)
	if err != nil {
		return nil, err
	}
	x.Reminders = reminders.Rows(rows)
	if x.CanRemind {
		if x.NewForm, err = h.reminders.Form(r, base+"/reminders", "", map[string]string{}, map[string]string{}, false); err != nil {
			return nil, err
		}
	}
	plans, err := kit.Section(r, store.EntityLead, lead.ID)
	if err != nil {
		return nil, err
	}
	return templ.Join(clientsview.LeadSections(x), plans), nil
}
