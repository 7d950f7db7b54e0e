package apptest

import "net/http"

// The route matrix's rows of my profile, two-factor sign-in and forgotten passwords
// (app/profile, app/session/two_factor.go), merged into Routes.
var profileRoutes = map[string]Route{
	// Public: the second step of a sign-in under way (none here: back to sign in, or 401
	// for the API), the forgotten-password form, a reset link (unknown here: a page says so).
	"GET /login/two-factor":                   {Who: Public, Refuses: http.StatusSeeOther},
	"POST /login/two-factor":                  {Who: Public, Form: "code=123456", Refuses: http.StatusSeeOther},
	"POST /v1/api/auth/login/two-factor":      {Who: Public, JSON: `{"challenge":"1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","code":"123456"}`, Refuses: http.StatusUnauthorized},
	"GET /forgot-password":                    {Who: Public},
	"POST /forgot-password":                   {Who: Public, Form: "email=nobody%40example.test"},
	"GET /reset-password/{token}":             {Who: Public, Params: map[string]string{"token": "any"}},
	"POST /reset-password/{token}":            {Who: Public, Params: map[string]string{"token": "any"}, Form: "password=Secret%401a"},
	"GET /profile":                            {Who: SignedIn, Tenant: Isolated, OwnerSees: true},
	"POST /profile":                           {Who: SignedIn, Form: "name=Other"},
	"POST /profile/password":                  {Who: SignedIn, Form: "current_password=wrong&password=Secret%401b"},
	"POST /profile/tokens":                    {Who: SignedIn, Form: "name=Other&expires_in_days=30"},
	"GET /profile/tokens/{id}/revoke":         {Who: SignedIn, ID: "apiToken", Tenant: NotFound, OwnerSees: true},
	"POST /profile/tokens/{id}/revoke":        {Who: SignedIn, ID: "apiToken", Tenant: NotFound},
	"POST /profile/sessions/sign-out":         {Who: SignedIn},
	"GET /profile/two-factor":                 {Who: SignedIn, Tenant: Isolated},
	"POST /profile/two-factor":                {Who: SignedIn, Form: "code=123456"},
	"POST /profile/two-factor/disable":        {Who: SignedIn, Form: "code=123456"},
	"POST /profile/two-factor/recovery-codes": {Who: SignedIn, Form: "code=123456"},
	"PUT /v1/api/update-profile":              {Who: SignedIn, JSON: `{"name":"Other"}`},
	"PUT /v1/api/change-password":             {Who: SignedIn, JSON: `{"current_password":"wrong","password":"Secret@1b"}`},
	"GET /v1/api/list-api-token":              {Who: SignedIn, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
	"POST /v1/api/create-api-token":           {Who: SignedIn, JSON: `{"name":"Other","expires_in_days":30}`},
	"DELETE /v1/api/delete-api-token/{id}":    {Who: SignedIn, ID: "apiToken", Tenant: NotFound},
	"GET /v1/api/list-session":                {Who: SignedIn, Tenant: Isolated},
	"POST /v1/api/sign-out-everywhere":        {Who: SignedIn},

	// A role's two-factor requirement is a change of the role.
	"POST /roles/{id}/two-factor": {Who: Permitted, Perms: []Perm{RolesUpdate}, ID: "role", Form: "require_two_factor=1", Tenant: NotFound},
}

func init() {
	for key, r := range profileRoutes {
		if _, dup := Routes[key]; dup {
			panic("route matrix: two rows for " + key)
		}
		Routes[key] = r
	}
}
