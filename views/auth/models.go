package auth

// LoginForm is the sign-in form's state.
type LoginForm struct {
	Email  string
	Next   string
	Error  string
	Action string
}
