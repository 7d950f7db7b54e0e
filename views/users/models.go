// Package users holds the views of team administration's users half.
package users

// InviteForm is the invitation page: the invitee chooses a password.
type InviteForm struct {
	Token string
	Email string
	Error string // a field error, already translated
}
