package apptest

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"crm/app/store"
)

// NewLead creates a lead through the API and returns its id.
func NewLead(t *testing.T, c *Client, name string) int64 {
	t.Helper()
	r := c.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{
		"customer_name": name, "company_name": name + " Co", "company_email": fmt.Sprintf("%s@example.com", slug(name)),
		"company_phone_number": "0123456789"})
	if r.Status != 201 {
		t.Fatalf("create %s: %d %s", name, r.Status, r.Body)
	}
	return int64(r.Env().Data["id"].(float64))
}

// AddLead creates a lead straight through the store, as user (0: the tenant's admin).
func AddLead(t *testing.T, e *Env, f Tenant, user int64, name string, mod ...func(*store.LeadInput)) int64 {
	t.Helper()
	if user == 0 {
		user = f.Admin.ID
	}
	in := store.LeadInput{Contact: store.Contact{CustomerName: name, CompanyName: name + " Co", CompanyEmail: strings.ToLower(slug(name)) + "@example.com"}}
	for _, m := range mod {
		m(&in)
	}
	l, _, err := e.DB.System(f.Tenant.ID, user).CreateLead(context.Background(), in, "", "")
	if err != nil {
		t.Fatalf("add lead %s: %v", name, err)
	}
	return l.ID
}

// InStage is an AddLead option that puts the lead in the stage id.
func InStage(id int64) func(*store.LeadInput) {
	return func(in *store.LeadInput) { in.LeadStageID = &id }
}

// slug keeps the ASCII letters and digits of s, for the email addresses made from names.
func slug(s string) string {
	out := []rune{}
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			out = append(out, r)
		}
	}
	return string(out)
}

// MasterID finds a master of the tenant by kind and name.
func MasterID(t *testing.T, e *Env, f Tenant, kind store.MasterKind, name string) int64 {
	t.Helper()
	ms, err := e.DB.System(f.Tenant.ID, 0).Masters(context.Background(), kind)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Name == name {
			return m.ID
		}
	}
	t.Fatalf("no %s %q", kind, name)
	return 0
}

// JourneyRow is an entry of a lead's journey as list-customer-journey returns it.
type JourneyRow struct {
	Action    string  `json:"action"`
	Before    *string `json:"before"`
	After     *string `json:"after"`
	ActorName string  `json:"actor_name"`
}

// Journey lists a lead's journey through the API, newest first (50 entries at most).
func Journey(t *testing.T, c *Client, id int64) []JourneyRow {
	t.Helper()
	r := c.Get(fmt.Sprintf("/v1/api/lead/list-customer-journey?lead_id=%d&limit=50", id))
	if r.Status != 200 {
		t.Fatalf("journey: %d %s", r.Status, r.Body)
	}
	var env struct {
		Data struct {
			Result []JourneyRow `json:"result"`
		} `json:"data"`
	}
	MustJSON(t, r.Body, &env)
	return env.Data.Result
}

// Bracket is ids as the URL-escaped bracketed list the list and delete calls take: [1,2].
func Bracket(ids ...int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return url.QueryEscape("[" + strings.Join(s, ",") + "]")
}
