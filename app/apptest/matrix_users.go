package apptest

// The route matrix's rows of the users admin pages and the security log (app/users): the
// users feature, as the users API.
func init() {
	for key, r := range map[string]Route{
		"GET /users":              {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated, OwnerSees: true},
		"GET /users/new":          {Who: Permitted, Perms: []Perm{UsersCreate}, Tenant: Isolated, OwnerSees: true},
		"POST /users/new":         {Who: Permitted, Perms: []Perm{UsersCreate}, Form: "name=New&email=new-page%40example.test&access=invite"},
		"GET /users/{id}":         {Who: Permitted, Perms: []Perm{UsersView}, ID: "user", Tenant: NotFound, OwnerSees: true},
		"GET /users/{id}/edit":    {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "user", Tenant: NotFound, OwnerSees: true},
		"POST /users/{id}/edit":   {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "user", Form: "name=Renamed&role_id=1", Tenant: NotFound},
		"POST /users/{id}/status": {Who: Permitted, Perms: []Perm{UsersUpdate}, ID: "user", Form: "status=inactive", Tenant: NotFound},
		"GET /users/{id}/delete":  {Who: Permitted, Perms: []Perm{UsersDelete}, ID: "user", Tenant: NotFound, OwnerSees: true},
		"POST /users/{id}/delete": {Who: Permitted, Perms: []Perm{UsersDelete}, ID: "user", Tenant: NotFound},
		"GET /security-log":       {Who: Permitted, Perms: []Perm{UsersView}, Tenant: Isolated, OwnerSees: true},
	} {
		if _, dup := Routes[key]; dup {
			panic("route matrix: two rows for " + key)
		}
		Routes[key] = r
	}
}
