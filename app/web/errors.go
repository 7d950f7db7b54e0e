package web

import (
	"errors"
	"net/http"

	"crm/app/store"
	"crm/app/validate"
)

// Error is an error with the status and the message id a client sees. The wrapped
// error, if any, is for the log only.
type Error struct {
	Status int
	MsgID  string
	Args   []any
	Err    error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.MsgID + ": " + e.Err.Error()
	}
	return e.MsgID
}

func (e *Error) Unwrap() error { return e.Err }

// Errors handlers return; rendered by Kit.Fail.
var (
	ErrUnauthorized     = &Error{Status: http.StatusUnauthorized, MsgID: "error.unauthorized"}
	ErrForbidden        = &Error{Status: http.StatusForbidden, MsgID: "error.forbidden"}
	ErrNotFound         = &Error{Status: http.StatusNotFound, MsgID: "error.notFound"}
	ErrCrossSite        = &Error{Status: http.StatusForbidden, MsgID: "error.crossSite"}
	ErrMethodNotAllowed = &Error{Status: http.StatusMethodNotAllowed, MsgID: "error.methodNotAllowed"}
)

// BadRequest is a 400 with a message id and optional template arguments.
func BadRequest(msgID string, err error, args ...any) error {
	return &Error{Status: http.StatusBadRequest, MsgID: msgID, Args: args, Err: err}
}

// Refuse is an error with a status and message id (and template arguments) of its own.
func Refuse(status int, msgID string, args ...any) error {
	return &Error{Status: status, MsgID: msgID, Args: args}
}

// Classify maps any error to the status, message id and field errors a client sees.
// A store refusal that names its own message (store.Refusal) is a 409 with that message;
// so is a foreign-key or unique violation (store.Violated).
func Classify(err error) (status int, msgID string, args []any, fields validate.Errors) {
	var he *Error
	var ve validate.Errors
	var tooBig *http.MaxBytesError
	var refusal store.Refusal
	switch {
	case errors.As(err, &ve):
		return http.StatusUnprocessableEntity, "error.validation", nil, ve
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, "error.tooLarge", nil, nil
	case errors.As(err, &he):
		return he.Status, he.MsgID, he.Args, nil
	case errors.As(err, &refusal):
		id, a := refusal.Refusal()
		return http.StatusConflict, id, a, nil
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "error.notFound", nil, nil
	case errors.Is(err, store.ErrForbidden):
		return http.StatusForbidden, "error.forbidden", nil, nil
	case errors.Is(err, store.ErrConflict):
		return http.StatusConflict, "error.conflict", nil, nil
	}
	// A constraint the rules did not catch first (a race, or a rule missing): a conflict
	// with a message, on either engine (store.Violated), never a database error.
	switch store.Violated(err) {
	case store.ForeignKey:
		return http.StatusConflict, "inputs.referenced", nil, nil
	case store.Unique:
		return http.StatusConflict, "inputs.duplicate", nil, nil
	}
	return http.StatusInternalServerError, "error.internal", nil, nil
}
