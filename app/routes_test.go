package app_test

import (
	"testing"

	"crm/app/apptest"
)

// TestRouteMatrix is the route-generated safety net: every route the router serves is in
// apptest.Routes, and for each one an anonymous caller is refused (unless public), another
// tenant's administrator given tenant A's ids gets 404 or nothing of tenant A's, and a role
// lacking the route's permission gets 403 (app/apptest/matrix.go).
func TestRouteMatrix(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		apptest.CheckRoutes(t, e, apptest.Routes)
	})
}
