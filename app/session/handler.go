// Package session serves signing in and out (admin form, JSON API, mobile form), the
// caller's own details and allowed features, the language switch, and the mobile lead
// manager's shell: its screens, service worker, message files and configuration.
package session

import (
	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
)

// Handler serves sign-in and the mobile shell.
type Handler struct {
	web      *web.Kit
	db       *store.DB
	throttle *auth.LoginThrottle
	// trustProxy takes the scheme from X-Forwarded-Proto (the mobile config's server URL).
	trustProxy bool
}

// New is the session handler; throttle limits failed sign-ins.
func New(kit *web.Kit, db *store.DB, throttle *auth.LoginThrottle, trustProxy bool) *Handler {
	return &Handler{web: kit, db: db, throttle: throttle, trustProxy: trustProxy}
}
