// Package profile serves a signed-in user's own profile (details, password, API tokens,
// sessions), enrolling in and leaving two-factor sign-in, and the forgotten-password
// pages (a reset link mailed through the users.Mailer seam).
package profile

import (
	"time"

	"crm/app/store"
	"crm/app/users"
	"crm/app/web"
)

// Handler serves the profile, two-factor enrolment and password resets.
type Handler struct {
	web    *web.Kit
	db     *store.DB
	mailer users.Mailer
}

// New is the profile handler; mailer receives the password reset links.
func New(kit *web.Kit, db *store.DB, mailer users.Mailer) *Handler {
	if mailer == nil {
		mailer = users.LogMailer{}
	}
	return &Handler{web: kit, db: db, mailer: mailer}
}

// TimeZones are the zones the profile offers, west to east; any IANA name is accepted
// through the API.
var TimeZones = []string{
	"Pacific/Honolulu", "America/Anchorage", "America/Los_Angeles", "America/Denver", "America/Phoenix",
	"America/Chicago", "America/Mexico_City", "America/New_York", "America/Toronto", "America/Bogota",
	"America/Lima", "America/Caracas", "America/Halifax", "America/Santiago", "America/Sao_Paulo",
	"America/Argentina/Buenos_Aires", "Atlantic/Azores", "Atlantic/Reykjavik", "Europe/London", "Europe/Dublin",
	"Europe/Lisbon", "Africa/Casablanca", "Africa/Lagos", "Europe/Paris", "Europe/Berlin", "Europe/Madrid",
	"Europe/Rome", "Europe/Amsterdam", "Europe/Brussels", "Europe/Zurich", "Europe/Vienna", "Europe/Prague",
	"Europe/Warsaw", "Europe/Stockholm", "Africa/Johannesburg", "Africa/Cairo", "Europe/Athens", "Europe/Helsinki",
	"Europe/Kyiv", "Europe/Istanbul", "Africa/Nairobi", "Europe/Moscow", "Asia/Riyadh", "Asia/Dubai",
	"Asia/Karachi", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Dhaka", "Asia/Bangkok", "Asia/Jakarta",
	"Asia/Singapore", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Manila", "Australia/Perth", "Asia/Seoul",
	"Asia/Tokyo", "Australia/Darwin", "Australia/Adelaide", "Australia/Brisbane", "Australia/Sydney",
	"Australia/Melbourne", "Australia/Hobart", "Pacific/Noumea", "Pacific/Auckland", "Pacific/Fiji",
}

// location is the user's time zone, UTC when unset or unknown.
func location(tz string) *time.Location {
	if tz == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return time.UTC
	}
	return loc
}
