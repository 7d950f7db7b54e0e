package apptest

import (
	"net/http"

	"crm/app/auth"
	"crm/app/store"
)

// The route matrix: one row for every route of the router ("METHOD pattern", as chi.Walk
// reports it), saying who may call it and how to call it with tenant A's records.
// CheckRoutes (matrix_check.go) walks the real router and, for every route:
//
//   - an anonymous caller is refused: 401 and the JSON envelope under /v1/api, a 303 to
//     /login?next=… (or /m/login for the mobile pages) otherwise; Public routes are served;
//   - the administrator of another tenant (B), given tenant A's real ids, gets what Tenant
//     says: 404 for a route that names one of A's records, an answer without anything of
//     A's for a list, an export or a dashboard; afterwards A's records are checked unchanged;
//   - for every permission the route needs, a user of tenant A whose role has every grant
//     except that one gets 403 (and for AnyOf, a role without any of them).
//
// A route the router serves without a row here fails the test, and so does a row whose
// route is gone: a new route must be added here, with its permission, in the same change.
//
// Request values name fixtures between braces, filled in by CheckRoutes (matrix_fixtures.go):
//
//	{lead} {client}               tenant A's lead and client (their names carry Marker)
//	{leadDoc} {clientDoc}         a document of each
//	{reminder} {view} {import}    a reminder of the lead, a saved view, an uploaded lead import
//	                              ({import} is the caller's own import for tenant A's users)
//	{stage} {status} {source} {type} {title} {business_type}
//	                              a master of each kind, named with Marker ({stage} holds the lead)
//	{stage1} {stage2} {stage3}    tenant A's first three stages; {stages} all, in order, comma-separated
//	{kind}                        the master kind the Settings pages are called with ("source")
//	{leadEmail}                   the lead's email
//	{role} {team} {teamUser}      a role of tenant A (no users), a team and its member
//	{apiToken}                    a named API token of tenant A's administrator (for tenant A's
//	                              other users, their own)
//	{my.user} {my.stage} {my.status}
//	                              the caller's own user and a stage and status of the caller's
//	                              tenant: values that pass validation, so a refusal is about
//	                              the record the route names
//	{login.email} {login.password} a user who can sign in (for the sign-in routes)
//	{file} {asset} {any}          a mobile message file, a built asset, any path

// Who says who may call a route.
type Who int

const (
	Public    Who = iota + 1 // anyone, signed in or not
	SignedIn                 // any signed-in user, whatever the role's grants
	Permitted                // a signed-in user whose role grants Perms (and one of AnyOf)
)

// Perm is one feature × action a route checks.
type Perm struct {
	Feature auth.Feature
	Action  auth.Action
}

func (p Perm) String() string { return string(p.Feature) + "." + string(p.Action) }

// The permissions routes check.
var (
	DashboardView  = Perm{auth.FeatureDashboard, auth.View}
	LeadsView      = Perm{auth.FeatureLeads, auth.View}
	LeadsCreate    = Perm{auth.FeatureLeads, auth.Create}
	LeadsUpdate    = Perm{auth.FeatureLeads, auth.Update}
	LeadsDelete    = Perm{auth.FeatureLeads, auth.Delete}
	ClientsView    = Perm{auth.FeatureClients, auth.View}
	ClientsCreate  = Perm{auth.FeatureClients, auth.Create}
	ClientsUpdate  = Perm{auth.FeatureClients, auth.Update}
	ClientsDelete  = Perm{auth.FeatureClients, auth.Delete}
	LeadsExport    = Perm{auth.FeatureLeads, auth.Export}
	LeadsImport    = Perm{auth.FeatureLeads, auth.Import}
	ClientsExport  = Perm{auth.FeatureClients, auth.Export}
	ClientsImport  = Perm{auth.FeatureClients, auth.Import}
	RolesView      = Perm{auth.FeatureRoles, auth.View}
	RolesCreate    = Perm{auth.FeatureRoles, auth.Create}
	RolesUpdate    = Perm{auth.FeatureRoles, auth.Update}
	RolesDelete    = Perm{auth.FeatureRoles, auth.Delete}
	UsersView      = Perm{auth.FeatureUsers, auth.View}
	UsersCreate    = Perm{auth.FeatureUsers, auth.Create}
	UsersUpdate    = Perm{auth.FeatureUsers, auth.Update}
	UsersDelete    = Perm{auth.FeatureUsers, auth.Delete}
	SettingsView   = Perm{auth.FeatureSettings, auth.View}
	SettingsCreate = Perm{auth.FeatureSettings, auth.Create}
	SettingsUpdate = Perm{auth.FeatureSettings, auth.Update}
	SettingsDelete = Perm{auth.FeatureSettings, auth.Delete}

	// importers may import leads or clients; undoers may undo such an import.
	importers = []Perm{LeadsImport, ClientsImport}
	undoers   = []Perm{LeadsDelete, ClientsDelete}
)

// Isolation says what the administrator of another tenant gets from a route called with
// tenant A's ids.
type Isolation int

const (
	// NotSent: nothing of tenant A's to reach (a create in the caller's own tenant, signing
	// out, a public route); the request is not sent as tenant B.
	NotSent Isolation = iota
	// NotFound: the route names one of tenant A's records (path, query or body): 404.
	NotFound
	// Isolated: served (below 400), with nothing of tenant A's: no Marker in the answer and
	// the Empty values empty.
	Isolated
	// Refused: the body names tenant A's records (a stage, a business type) as values:
	// refused with a 4xx other than 401.
	Refused
	// NoEffect: a bulk change that skips what the caller cannot reach: any answer below 500
	// without Marker, the Empty values empty, and tenant A's records unchanged afterwards.
	NoEffect
)

// Check names one of the three checks, for KnownGap.
type Check string

const (
	Anonymous   Check = "anonymous"
	OtherTenant Check = "other tenant"
	MissingPerm Check = "missing permission"
)

// FileBody is a multipart body: Fields, then one file.
type FileBody struct {
	Fields string // URL-encoded form fields
	Field  string // the file's field name
	Name   string
	Data   string
}

// Route is one row of the matrix.
type Route struct {
	Who   Who
	Perms []Perm // each one checked: a role lacking just that one gets 403
	AnyOf []Perm // at least one needed: a role lacking all of them gets 403

	ID     string            // the fixture of {id}
	Params map[string]string // other URL parameters → fixture ({docID}, {kind}, {file}, *)
	Query  string            // query string, with {fixtures}
	JSON   string            // JSON body, with {fixtures}
	Form   string            // URL-encoded form body, with {fixtures}
	Upload *FileBody         // multipart body

	// Refuses is what a public route answers an anonymous caller who has not started what
	// it finishes (an SSO callback without a sign-in under way, an SSO start for a tenant
	// without a provider): that status is expected instead of a served page.
	Refuses int

	Tenant    Isolation
	Empty     []string // for tenant B: JSON paths (data.result, data.total …) that must be empty or zero; "csv": no data rows
	OwnerSees bool     // tenant A's administrator's GET answer shows Marker (so B's answer without it means something)

	// KnownGap marks a check that fails today, with why; the test skips that check (and
	// fails once it passes, so the mark goes).
	KnownGap map[Check]string
}

func gap(c Check, why string) map[Check]string { return map[Check]string{c: why} }

// Marker is in the name of every fixture of tenant A.
const Marker = "Mx9Qz"

// The minimal valid bodies.
const (
	personForm   = "customer_name=Changed&company_email=changed%40example.test&company_phone_number=0123456789" // a lead or client
	reminderForm = "title=Call+back&due_at=2030-01-02T10%3A00&assignee_id={my.user}"
	reminderJSON = `{"title":"Call back","due_at":"2030-01-02T10:00:00Z","assignee_id":{my.user}}`
	importCSV    = "Name,Email\nOther " + Marker + ",other@example.test\n"
)

var docUpload = &FileBody{Fields: "tag=t", Field: "files", Name: "note.txt", Data: "a plain note\n"}

// Routes is the matrix.
var Routes = func() map[string]Route {
	m := map[string]Route{
		// Process-level endpoints, sign-in, the mobile shell's public files.
		"GET /":                         {Who: SignedIn},
		"GET /healthz":                  {Who: Public},
		"GET /readyz":                   {Who: Public},
		"GET /static/build/*":           {Who: Public, Params: map[string]string{"*": "asset"}},
		"GET /login":                    {Who: Public},
		"GET /invite/{token}":           {Who: Public, Params: map[string]string{"token": "any"}},
		"POST /invite/{token}":          {Who: Public, Params: map[string]string{"token": "any"}, Form: "password=Secret%401a"},
		"POST /login":                   {Who: Public, Form: "email={login.email}&password={login.password}"},
		"POST /language":                {Who: Public, Form: "locale=fr_FR"},
		"GET /m":                        {Who: Public},
		"GET /m/":                       {Who: Public},
		"GET /m/*":                      {Who: Public, Params: map[string]string{"*": "any"}},
		"GET /m/login":                  {Who: Public},
		"POST /m/login":                 {Who: Public, Form: "email={login.email}&password={login.password}"},
		"GET /m/sw.js":                  {Who: Public},
		"GET /locales/mobile/{file}":    {Who: Public, Params: map[string]string{"file": "file"}},
		"GET /v1/api/config.json":       {Who: Public},
		"GET /v1/api/openapi.json":      {Who: Public},
		"POST /v1/api/auth/login":       {Who: Public, JSON: `{"email":"{login.email}","password":"{login.password}"}`},
		"POST /logout":                  {Who: SignedIn},
		"POST /v1/api/auth/logout":      {Who: SignedIn},
		"GET /v1/api/auth/me":           {Who: SignedIn, Tenant: Isolated},
		"GET /v1/api/get-allow-feature": {Who: SignedIn, Tenant: Isolated},
		"GET /m/leads-mobile":           {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, OwnerSees: true}, // the shell shows the first leads
		"GET /m/add-lead":               {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated},
		"GET /m/add-lead-address":       {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated},

		"GET /home": {Who: Permitted, Perms: []Perm{DashboardView}, Tenant: Isolated, OwnerSees: true},

		// Lead pages.
		"GET /leads":                                {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, OwnerSees: true},
		"POST /leads/bulk/update":                   {Who: Permitted, Perms: []Perm{LeadsUpdate}, Form: "ids={lead}&field=lead_stage_id&lead_stage_id={my.stage}", Tenant: NoEffect},
		"POST /leads/bulk/delete":                   {Who: Permitted, Perms: []Perm{LeadsDelete}, Form: "ids={lead}&confirm=1", Tenant: NotFound},
		"POST /leads/views":                         {Who: Permitted, Perms: []Perm{LeadsView}, Form: "name=Other&query=search%3Dx"},
		"POST /leads/views/{id}/delete":             {Who: Permitted, Perms: []Perm{LeadsView}, ID: "view", Tenant: NotFound},
		"GET /leads/new":                            {Who: Permitted, Perms: []Perm{LeadsCreate}, Tenant: Isolated, OwnerSees: true},
		"POST /leads/new":                           {Who: Permitted, Perms: []Perm{LeadsCreate}, Form: personForm},
		"GET /leads/board":                          {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, OwnerSees: true},
		"GET /leads/board/more":                     {Who: Permitted, Perms: []Perm{LeadsView}, Query: "stage_id={stage}", Tenant: NotFound, OwnerSees: true},
		"GET /leads/{id}":                           {Who: Permitted, Perms: []Perm{LeadsView}, ID: "lead", Tenant: NotFound, OwnerSees: true},
		"GET /leads/{id}/edit":                      {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Tenant: NotFound, OwnerSees: true},
		"POST /leads/{id}/edit":                     {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Form: personForm, Tenant: NotFound},
		"POST /leads/{id}/stage":                    {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Form: "lead_stage_id={my.stage}", Tenant: NotFound},
		"POST /leads/{id}/status":                   {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Form: "lead_status_id={my.status}", Tenant: NotFound},
		"GET /leads/{id}/delete":                    {Who: Permitted, Perms: []Perm{LeadsDelete}, ID: "lead", Tenant: NotFound, OwnerSees: true},
		"POST /leads/{id}/delete":                   {Who: Permitted, Perms: []Perm{LeadsDelete}, ID: "lead", Tenant: NotFound},
		"POST /leads/{id}/convert":                  {Who: Permitted, Perms: []Perm{ClientsCreate, LeadsUpdate}, ID: "lead", Tenant: NotFound},
		"POST /leads/{id}/reminders":                {Who: Permitted, Perms: []Perm{LeadsCreate}, ID: "lead", Form: reminderForm, Tenant: NotFound},
		"GET /reminders/{id}/edit":                  {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: []Perm{LeadsUpdate, ClientsUpdate}, ID: "reminder", Tenant: NotFound, OwnerSees: true},
		"POST /reminders/{id}/edit":                 {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: []Perm{LeadsUpdate, ClientsUpdate}, ID: "reminder", Form: reminderForm, Tenant: NotFound},
		"POST /reminders/{id}/done":                 {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: []Perm{LeadsUpdate, ClientsUpdate}, ID: "reminder", Tenant: NotFound},
		"GET /reminders/{id}/delete":                {Who: Permitted, Perms: []Perm{LeadsDelete}, AnyOf: []Perm{LeadsDelete, ClientsDelete}, ID: "reminder", Tenant: NotFound, OwnerSees: true},
		"POST /reminders/{id}/delete":               {Who: Permitted, Perms: []Perm{LeadsDelete}, AnyOf: []Perm{LeadsDelete, ClientsDelete}, ID: "reminder", Tenant: NotFound},
		"GET /notifications":                        {Who: Permitted, AnyOf: []Perm{LeadsView, ClientsView}, Tenant: Isolated, OwnerSees: true},
		"GET /leads/export.csv":                     {Who: Permitted, Perms: []Perm{LeadsExport}, Tenant: Isolated, Empty: []string{"csv"}, OwnerSees: true},
		"POST /leads/{id}/documents":                {Who: Permitted, Perms: []Perm{LeadsCreate}, ID: "lead", Upload: docUpload, Tenant: NotFound},
		"GET /leads/{id}/documents/{docID}/edit":    {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Params: map[string]string{"docID": "leadDoc"}, Tenant: NotFound, OwnerSees: true},
		"POST /leads/{id}/documents/{docID}/edit":   {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Params: map[string]string{"docID": "leadDoc"}, Form: "name=renamed.txt&tag=t", Tenant: NotFound},
		"GET /leads/{id}/documents/{docID}/delete":  {Who: Permitted, Perms: []Perm{LeadsDelete}, ID: "lead", Params: map[string]string{"docID": "leadDoc"}, Tenant: NotFound, OwnerSees: true},
		"POST /leads/{id}/documents/{docID}/delete": {Who: Permitted, Perms: []Perm{LeadsDelete}, ID: "lead", Params: map[string]string{"docID": "leadDoc"}, Tenant: NotFound},

		// Client pages.
		"GET /clients":                                {Who: Permitted, Perms: []Perm{ClientsView}, Tenant: Isolated, OwnerSees: true},
		"POST /clients/bulk/owner":                    {Who: Permitted, Perms: []Perm{ClientsUpdate}, Form: "ids={client}&owner_id={my.user}", Tenant: NoEffect},
		"POST /clients/bulk/delete":                   {Who: Permitted, Perms: []Perm{ClientsDelete}, Form: "ids={client}&confirm=1", Tenant: NotFound},
		"GET /clients/new":                            {Who: Permitted, Perms: []Perm{ClientsCreate}, Tenant: Isolated, OwnerSees: true},
		"POST /clients/new":                           {Who: Permitted, Perms: []Perm{ClientsCreate}, Form: personForm + "&company_type_id={business_type}", Tenant: Refused},
		"GET /clients/{id}":                           {Who: Permitted, Perms: []Perm{ClientsView}, ID: "client", Tenant: NotFound, OwnerSees: true},
		"GET /clients/{id}/edit":                      {Who: Permitted, Perms: []Perm{ClientsUpdate}, ID: "client", Tenant: NotFound, OwnerSees: true},
		"POST /clients/{id}/edit":                     {Who: Permitted, Perms: []Perm{ClientsUpdate}, ID: "client", Form: personForm, Tenant: NotFound},
		"GET /clients/{id}/delete":                    {Who: Permitted, Perms: []Perm{ClientsDelete}, ID: "client", Tenant: NotFound, OwnerSees: true},
		"POST /clients/{id}/delete":                   {Who: Permitted, Perms: []Perm{ClientsDelete}, ID: "client", Tenant: NotFound},
		"GET /clients/export.csv":                     {Who: Permitted, Perms: []Perm{ClientsExport}, Tenant: Isolated, Empty: []string{"csv"}, OwnerSees: true},
		"POST /clients/{id}/documents":                {Who: Permitted, Perms: []Perm{ClientsCreate}, ID: "client", Upload: docUpload, Tenant: NotFound},
		"GET /clients/{id}/documents/{docID}/edit":    {Who: Permitted, Perms: []Perm{ClientsUpdate}, ID: "client", Params: map[string]string{"docID": "clientDoc"}, Tenant: NotFound, OwnerSees: true},
		"POST /clients/{id}/documents/{docID}/edit":   {Who: Permitted, Perms: []Perm{ClientsUpdate}, ID: "client", Params: map[string]string{"docID": "clientDoc"}, Form: "name=renamed.txt&tag=t", Tenant: NotFound},
		"GET /clients/{id}/documents/{docID}/delete":  {Who: Permitted, Perms: []Perm{ClientsDelete}, ID: "client", Params: map[string]string{"docID": "clientDoc"}, Tenant: NotFound, OwnerSees: true},
		"POST /clients/{id}/documents/{docID}/delete": {Who: Permitted, Perms: []Perm{ClientsDelete}, ID: "client", Params: map[string]string{"docID": "clientDoc"}, Tenant: NotFound},

		// Settings pages.
		"GET /settings":                             {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated},
		"GET /settings/masters/{kind}":              {Who: Permitted, Perms: []Perm{SettingsView}, Params: map[string]string{"kind": "kind"}, Tenant: Isolated, OwnerSees: true},
		"POST /settings/masters/{kind}":             {Who: Permitted, Perms: []Perm{SettingsCreate}, Params: map[string]string{"kind": "kind"}, Form: "name=Another"},
		"POST /settings/masters/{kind}/{id}/rename": {Who: Permitted, Perms: []Perm{SettingsUpdate}, ID: "source", Params: map[string]string{"kind": "kind"}, Form: "name=Renamed", Tenant: NotFound},
		"POST /settings/masters/{kind}/{id}/move":   {Who: Permitted, Perms: []Perm{SettingsUpdate}, ID: "source", Params: map[string]string{"kind": "kind"}, Form: "dir=down", Tenant: NotFound},
		"GET /settings/masters/{kind}/{id}/delete":  {Who: Permitted, Perms: []Perm{SettingsDelete}, ID: "source", Params: map[string]string{"kind": "kind"}, Tenant: NotFound, OwnerSees: true},
		"POST /settings/masters/{kind}/{id}/delete": {Who: Permitted, Perms: []Perm{SettingsDelete}, ID: "source", Params: map[string]string{"kind": "kind"}, Tenant: NotFound},
		"GET /settings/stages":                      {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated, OwnerSees: true},

		// Sign-in with the tenant's provider: public (no provider configured here: 404).
		"GET /login/sso":            {Who: Public, Query: "email=someone%40example.test"},
		"GET /auth/google":          {Who: Public, Query: "tenant=1", Refuses: http.StatusNotFound},
		"GET /auth/google/callback": {Who: Public, Refuses: http.StatusForbidden},
		"GET /settings/sso":         {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated},
		"POST /settings/sso":        {Who: Permitted, Perms: []Perm{SettingsUpdate}, Form: "provider_name=Other&issuer=https%3A%2F%2Fidp.example&client_id=x&client_secret=y"},

		// Team administration: roles (roles feature), teams (users feature).
		"GET /roles":                              {Who: Permitted, Perms: []Perm{RolesView}, Tenant: Isolated, OwnerSees: true},
		"POST /roles":                             {Who: Permitted, Perms: []Perm{RolesCreate}, Form: "name=Another+role"},
		"GET /roles/{id}":                         {Who: Permitted, Perms: []Perm{RolesView}, ID: "role", Tenant: NotFound, OwnerSees: true},
		"POST /roles/{id}":                        {Who: Permitted, Perms: []Perm{RolesUpdate}, ID: "role", Form: "name=Renamed", Tenant: NotFound},
		"POST /roles/{id}/permissions":            {Who: Permitted, Perms: []Perm{RolesUpdate}, ID: "role", Form: "version=1&p.leads.view=all", Tenant: NotFound},
		"GET /roles/{id}/delete":                  {Who: Permitted, Perms: []Perm{RolesDelete}, ID: "role", Tenant: NotFound, OwnerSees: true},
		"POST /roles/{id}/delete":                 {Who: Permitted, Perms: []Perm{RolesDelete}, ID: "role", Tenant: NotFound},
		"GET /teams":                              {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated, OwnerSees: true},
		"POST /teams":                             {Who: Permitted, Perms: []Perm{UsersCreate}, Form: "name=Another+team"},
		"GET /teams/{id}":                         {Who: Permitted, Perms: []Perm{UsersView}, ID: "team", Tenant: NotFound, OwnerSees: true},
		"POST /teams/{id}":                        {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "team", Form: "name=Renamed", Tenant: NotFound},
		"POST /teams/{id}/members":                {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "team", Form: "user_id={my.user}", Tenant: NotFound},
		"POST /teams/{id}/members/{user}/remove":  {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "team", Params: map[string]string{"user": "teamUser"}, Tenant: NotFound},
		"POST /teams/{id}/delete":                 {Who: Permitted, Perms: []Perm{UsersDelete}, ID: "team", Tenant: NotFound},
		"GET /v1/api/list-role-master":            {Who: Permitted, Perms: []Perm{RolesView}, Tenant: Isolated, OwnerSees: true},
		"GET /v1/api/view-role-master/{id}":       {Who: Permitted, Perms: []Perm{RolesView}, ID: "role", Tenant: NotFound, OwnerSees: true},
		"POST /v1/api/create-role-master":         {Who: Permitted, Perms: []Perm{RolesCreate}, JSON: `{"name":"Another role"}`},
		"PUT /v1/api/update-role-master/{id}":     {Who: Permitted, Perms: []Perm{RolesUpdate}, ID: "role", JSON: `{"name":"Renamed"}`, Tenant: NotFound},
		"DELETE /v1/api/delete-role-master/{id}":  {Who: Permitted, Perms: []Perm{RolesDelete}, ID: "role", Tenant: NotFound},
		"GET /v1/api/list-role-permission":        {Who: Permitted, Perms: []Perm{RolesView}, Tenant: Isolated, OwnerSees: true},
		"GET /v1/api/view-role-permission/{id}":   {Who: Permitted, Perms: []Perm{RolesView}, ID: "role", Tenant: NotFound, OwnerSees: true},
		"PUT /v1/api/update-role-permission/{id}": {Who: Permitted, Perms: []Perm{RolesUpdate}, ID: "role", JSON: `{"version":1,"permissions":{"leads":{"view":"all"}}}`, Tenant: NotFound},
		"GET /v1/api/list-team-master":            {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated, OwnerSees: true},
		"GET /v1/api/view-team-master/{id}":       {Who: Permitted, Perms: []Perm{UsersView}, ID: "team", Tenant: NotFound, OwnerSees: true},
		"POST /v1/api/create-team-master":         {Who: Permitted, Perms: []Perm{UsersCreate}, JSON: `{"name":"Another team"}`},
		"PUT /v1/api/update-team-master/{id}":     {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "team", JSON: `{"name":"Renamed"}`, Tenant: NotFound},
		"DELETE /v1/api/delete-team-master/{id}":  {Who: Permitted, Perms: []Perm{UsersDelete}, ID: "team", Tenant: NotFound},
		"POST /v1/api/add-team-member/{id}":       {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "team", JSON: `{"user_id":{my.user}}`, Tenant: NotFound},
		"POST /v1/api/remove-team-member/{id}":    {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "team", JSON: `{"user_id":{teamUser}}`, Tenant: NotFound},
		"POST /settings/stages":                   {Who: Permitted, Perms: []Perm{SettingsUpdate}, Form: "default_stage_id={stage1}&won_stage_id={stage2}&lost_stage_id={stage3}", Tenant: Refused},

		// Imports: routes.go lets in whoever may import (to undo: delete) leads or clients;
		// the store checks the import's own entity (import to upload and run, update too for
		// an upsert, import and delete to undo); an import is its user's.
		"GET /imports":                            {Who: Permitted, AnyOf: importers, Tenant: Isolated, OwnerSees: true},
		"GET /imports/new":                        {Who: Permitted, AnyOf: importers, Tenant: Isolated},
		"POST /imports/new":                       {Who: Permitted, Perms: []Perm{LeadsImport}, AnyOf: importers, Upload: &FileBody{Fields: "entity=lead", Field: "file", Name: "people.csv", Data: importCSV}},
		"GET /imports/{id}":                       {Who: Permitted, AnyOf: importers, ID: "import", Tenant: NotFound, OwnerSees: true},
		"POST /imports/{id}/run":                  {Who: Permitted, Perms: []Perm{LeadsImport, LeadsUpdate}, ID: "import", Form: "map.0=customer_name&map.1=company_email&mode=upsert&match_key=email", Tenant: NotFound},
		"GET /imports/{id}/progress":              {Who: Permitted, AnyOf: importers, ID: "import", Tenant: NotFound},
		"GET /imports/{id}/report.csv":            {Who: Permitted, AnyOf: importers, ID: "import", Tenant: NotFound, OwnerSees: true},
		"GET /imports/{id}/undo":                  {Who: Permitted, Perms: []Perm{LeadsImport, LeadsDelete}, AnyOf: undoers, ID: "import", Tenant: NotFound, OwnerSees: true},
		"POST /imports/{id}/undo":                 {Who: Permitted, Perms: []Perm{LeadsImport, LeadsDelete}, AnyOf: undoers, ID: "import", Tenant: NotFound},
		"POST /v1/api/import/create-import":       {Who: Permitted, Perms: []Perm{LeadsImport}, Query: "entity=lead", Upload: &FileBody{Field: "file", Name: "people.csv", Data: importCSV}},
		"GET /v1/api/import/list-import":          {Who: Permitted, AnyOf: importers, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"GET /v1/api/import/view-import/{id}":     {Who: Permitted, AnyOf: importers, ID: "import", Tenant: NotFound, OwnerSees: true},
		"PATCH /v1/api/import/run-import/{id}":    {Who: Permitted, Perms: []Perm{LeadsImport, LeadsUpdate}, ID: "import", JSON: `{"mapping":["customer_name","company_email"],"mode":"upsert","match_key":"email"}`, Tenant: NotFound},
		"PATCH /v1/api/import/undo-import/{id}":   {Who: Permitted, Perms: []Perm{LeadsImport, LeadsDelete}, AnyOf: undoers, ID: "import", Tenant: NotFound},
		"GET /v1/api/import/list-import-row/{id}": {Who: Permitted, AnyOf: importers, ID: "import", Tenant: NotFound},
		"GET /v1/api/import/report-import/{id}":   {Who: Permitted, AnyOf: importers, ID: "import", Tenant: NotFound, OwnerSees: true},

		// Leads API.
		"GET /v1/api/list-user":                               {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated, OwnerSees: true},
		"GET /v1/api/view-user/{id}":                          {Who: Permitted, Perms: []Perm{UsersView}, ID: "user", Tenant: NotFound, OwnerSees: true},
		"GET /v1/api/get-user":                                {Who: SignedIn, Tenant: Isolated},
		"POST /v1/api/add-user":                               {Who: Permitted, Perms: []Perm{UsersCreate}, JSON: `{"email":"new@example.test","name":"New","invite":true,"role_id":0}`},
		"POST /v1/api/create-user":                            {Who: Permitted, Perms: []Perm{UsersCreate}, JSON: `{"email":"new@example.test","name":"New","invite":true,"role_id":0}`},
		"PUT /v1/api/update-user/{id}":                        {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "user", JSON: `{"name":"Renamed"}`, Tenant: NotFound},
		"PATCH /v1/api/status-update-user/{id}":               {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "user", JSON: `{"status":"inactive"}`, Tenant: NotFound},
		"DELETE /v1/api/delete-user/{id}":                     {Who: Permitted, Perms: []Perm{UsersDelete}, ID: "user", Tenant: NotFound},
		"GET /v1/api/check-user":                              {Who: Permitted, Perms: []Perm{UsersCreate}, Query: "email=free@example.test"},
		"GET /v1/api/dropdown-role-master":                    {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated},
		"GET /v1/api/list-security-log":                       {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated},
		"GET /v1/api/lead/list-customer-lead":                 {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"GET /v1/api/lead/view-customer-lead/{id}":            {Who: Permitted, Perms: []Perm{LeadsView}, ID: "lead", Tenant: NotFound, OwnerSees: true},
		"GET /v1/api/lead/logo/{id}":                          {Who: Permitted, Perms: []Perm{LeadsView}, ID: "lead", Tenant: NotFound},
		"POST /v1/api/lead/create-customer-lead":              {Who: Permitted, Perms: []Perm{LeadsCreate}, JSON: `{"customer_name":"New","company_email":"new@example.test","company_phone_number":"0123456789"}`},
		"DELETE /v1/api/lead/delete-customer-lead/{id}":       {Who: Permitted, Perms: []Perm{LeadsDelete}, ID: "lead", Tenant: NotFound},
		"PUT /v1/api/lead/update-customer-lead/{id}":          {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", JSON: `{"customer_name":"Changed","company_email":"changed@example.test","company_phone_number":"0123456789"}`, Tenant: NotFound},
		"PATCH /v1/api/lead/update-stage-customer-lead/{id}":  {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", JSON: `{"lead_stage_id":{my.stage}}`, Tenant: NotFound},
		"PATCH /v1/api/lead/update-status-customer-lead/{id}": {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", JSON: `{"lead_status_id":{my.status}}`, Tenant: NotFound},
		"PATCH /v1/api/lead/update-owner-customer-lead/{id}":  {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", JSON: `{"owner_id":{my.user}}`, Tenant: NotFound},
		"PATCH /v1/api/lead/bulk-update-customer-lead":        {Who: Permitted, Perms: []Perm{LeadsUpdate}, JSON: `{"ids":[{lead}],"lead_stage_id":{my.stage}}`, Tenant: NoEffect, Empty: []string{"data.count"}},
		"DELETE /v1/api/lead/delete-customer-lead":            {Who: Permitted, Perms: []Perm{LeadsDelete}, Query: "ids=[{lead}]", Tenant: NotFound},
		"GET /v1/api/lead/list-customer-journey":              {Who: Permitted, Perms: []Perm{LeadsView}, Query: "lead_id={lead}", Tenant: NotFound, OwnerSees: true},
		"GET /v1/api/lead/duplicate-customer-lead":            {Who: Permitted, Perms: []Perm{LeadsView}, Query: "email={leadEmail}", Tenant: Isolated, Empty: []string{"data"}, OwnerSees: true},
		"GET /v1/api/lead/dropdown-customer-lead":             {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, Empty: []string{"data"}, OwnerSees: true},
		"GET /v1/api/lead/list-saved-view":                    {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"POST /v1/api/lead/create-saved-view":                 {Who: Permitted, Perms: []Perm{LeadsView}, JSON: `{"name":"Other","query":"search=x"}`},
		"DELETE /v1/api/lead/delete-saved-view/{id}":          {Who: Permitted, Perms: []Perm{LeadsView}, ID: "view", Tenant: NotFound},
		"POST /v1/api/lead/convert-to-client/{id}":            {Who: Permitted, Perms: []Perm{ClientsCreate, LeadsUpdate}, ID: "lead", Tenant: NotFound},
		"POST /v1/api/lead/create-remainders":                 {Who: Permitted, Perms: []Perm{LeadsCreate}, AnyOf: []Perm{LeadsCreate, ClientsCreate}, JSON: `{"lead_id":{lead},"title":"Call back","due_at":"2030-01-02T10:00:00Z","assignee_id":{my.user}}`, Tenant: NotFound},
		"GET /v1/api/lead/list-remainders":                    {Who: Permitted, Perms: []Perm{LeadsView}, AnyOf: []Perm{LeadsView, ClientsView}, Query: "lead_id={lead}", Tenant: NotFound, OwnerSees: true},
		"GET /v1/api/lead/view-remainders/{id}":               {Who: Permitted, Perms: []Perm{LeadsView}, AnyOf: []Perm{LeadsView, ClientsView}, ID: "reminder", Tenant: NotFound, OwnerSees: true},
		"PUT /v1/api/lead/update-remainders/{id}":             {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: []Perm{LeadsUpdate, ClientsUpdate}, ID: "reminder", JSON: reminderJSON, Tenant: NotFound},
		"DELETE /v1/api/lead/delete-remainders/{id}":          {Who: Permitted, Perms: []Perm{LeadsDelete}, AnyOf: []Perm{LeadsDelete, ClientsDelete}, ID: "reminder", Tenant: NotFound},
		"GET /v1/api/notifications":                           {Who: Permitted, AnyOf: []Perm{LeadsView, ClientsView}, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"GET /v1/api/lead/export-customer-lead":               {Who: Permitted, Perms: []Perm{LeadsExport}, Tenant: Isolated, Empty: []string{"csv"}, OwnerSees: true},

		// Clients API.
		"POST /v1/api/client/create-customer-client":        {Who: Permitted, Perms: []Perm{ClientsCreate}, JSON: `{"customer_name":"New","company_email":"new@example.test","company_phone_number":"0123456789","company_type_id":{business_type}}`, Tenant: Refused},
		"PUT /v1/api/client/update-customer-client/{id}":    {Who: Permitted, Perms: []Perm{ClientsUpdate}, ID: "client", JSON: `{"customer_name":"Changed","company_email":"changed@example.test","company_phone_number":"0123456789"}`, Tenant: NotFound},
		"GET /v1/api/client/view-customer-client/{id}":      {Who: Permitted, Perms: []Perm{ClientsView}, ID: "client", Tenant: NotFound, OwnerSees: true},
		"DELETE /v1/api/client/delete-customer-client/{id}": {Who: Permitted, Perms: []Perm{ClientsDelete}, ID: "client", Tenant: NotFound},
		"GET /v1/api/client/list-customer-client":           {Who: Permitted, Perms: []Perm{ClientsView}, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"PATCH /v1/api/client/bulk-update-customer-client":  {Who: Permitted, Perms: []Perm{ClientsUpdate}, JSON: `{"ids":[{client}],"owner_id":{my.user}}`, Tenant: NoEffect, Empty: []string{"data.count"}},
		"DELETE /v1/api/client/delete-customer-client":      {Who: Permitted, Perms: []Perm{ClientsDelete}, Query: "ids=[{client}]", Tenant: NotFound},
		"GET /v1/api/client/export-customer-client":         {Who: Permitted, Perms: []Perm{ClientsExport}, Tenant: Isolated, Empty: []string{"csv"}, OwnerSees: true},

		// Dashboards.
		"GET /v1/api/lead/dashboard/lead":          {Who: Permitted, Perms: []Perm{DashboardView, LeadsView}, Tenant: Isolated, Empty: []string{"data.total"}},
		"GET /v1/api/lead/dashboard/lead-overview": {Who: Permitted, Perms: []Perm{DashboardView, LeadsView}, Tenant: Isolated, Empty: []string{"data.total"}},
		"GET /v1/api/client/dashboard/client":      {Who: Permitted, Perms: []Perm{DashboardView, ClientsView}, Tenant: Isolated, Empty: []string{"data.total"}},

		// Masters and stage settings.
		"GET /v1/api/dropdown-lead-stage-master/{id}":   {Who: Permitted, Perms: []Perm{LeadsView}, ID: "stage", Tenant: NotFound, OwnerSees: true},
		"PUT /v1/api/update-lead-stage-order":           {Who: Permitted, Perms: []Perm{SettingsUpdate}, JSON: `{"ids":[{stages}]}`, Tenant: Refused},
		"GET /v1/api/view-or-create-lead-stage-setting": {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated},
		"PUT /v1/api/update-lead-stage-setting":         {Who: Permitted, Perms: []Perm{SettingsUpdate}, JSON: `{"default_stage_id":{stage1},"won_stage_id":{stage2},"lost_stage_id":{stage3}}`, Tenant: Refused},
	}

	add := func(key string, r Route) {
		if _, dup := m[key]; dup {
			panic("route matrix: two rows for " + key)
		}
		m[key] = r
	}

	// Documents API, of leads and of clients alike.
	for _, d := range []struct {
		entity, record, doc       string
		view, create, update, del Perm
	}{
		{store.EntityLead, "lead", "leadDoc", LeadsView, LeadsCreate, LeadsUpdate, LeadsDelete},
		{store.EntityClient, "client", "clientDoc", ClientsView, ClientsCreate, ClientsUpdate, ClientsDelete},
	} {
		p := "/v1/api/" + d.entity
		add("POST "+p+"/create-document/{id}", Route{Who: Permitted, Perms: []Perm{d.create}, ID: d.record, Upload: docUpload, Tenant: NotFound})
		add("GET "+p+"/list-document/{id}", Route{Who: Permitted, Perms: []Perm{d.view}, ID: d.record, Tenant: NotFound, OwnerSees: true})
		add("GET "+p+"/view-document/{id}", Route{Who: Permitted, Perms: []Perm{d.view}, ID: d.doc, Tenant: NotFound, OwnerSees: true})
		add("GET "+p+"/download-document/{id}", Route{Who: Permitted, Perms: []Perm{d.view}, ID: d.doc, Tenant: NotFound, OwnerSees: true})
		add("PUT "+p+"/update-document/{id}", Route{Who: Permitted, Perms: []Perm{d.update}, ID: d.doc, JSON: `{"name":"renamed.txt","tag":"t"}`, Tenant: NotFound})
		add("DELETE "+p+"/delete-document/{id}", Route{Who: Permitted, Perms: []Perm{d.del}, ID: d.doc, Tenant: NotFound})
	}

	// Master lists: their dropdowns serve anyone working with leads; the rest is Settings.
	for path, kind := range map[string]store.MasterKind{
		"lead-stage-master": store.KindStage, "lead-status-master": store.KindStatus, "lead-source-master": store.KindSource,
		"lead-type-master": store.KindType, "personal-title": store.KindTitle, "business-type-master": store.KindBusinessType,
		"event-type": store.KindEventType,
	} {
		p, id := "/v1/api/", string(kind)
		m["GET "+p+"dropdown-"+path] = Route{Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, OwnerSees: true}
		m["GET "+p+"list-"+path] = Route{Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated, OwnerSees: true}
		add("GET "+p+"view-"+path+"/{id}", Route{Who: Permitted, Perms: []Perm{SettingsView}, ID: id, Tenant: NotFound, OwnerSees: true})
		m["POST "+p+"create-"+path] = Route{Who: Permitted, Perms: []Perm{SettingsCreate}, JSON: `{"name":"Another"}`}
		add("PUT "+p+"update-"+path+"/{id}", Route{Who: Permitted, Perms: []Perm{SettingsUpdate}, ID: id, JSON: `{"name":"Renamed"}`, Tenant: NotFound})
		add("DELETE "+p+"delete-"+path+"/{id}", Route{Who: Permitted, Perms: []Perm{SettingsDelete}, ID: id, Tenant: NotFound})
	}
	for key, r := range mailRoutes() { // matrix_mail.go
		add(key, r)
	}
	for key, r := range kitRoutes() { // matrix_kit.go
		add(key, r)
	}
	for key, r := range clientReminderRoutes() { // matrix_clientrem.go
		add(key, r)
	}
	return m
}()
