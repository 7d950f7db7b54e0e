package app

import (
	"errors"
	"net/http"

	"crm/app/store"
	"crm/app/validate"
)

// httpError is an error with the status and the message id a client sees. The wrapped
// error, if any, is for the log only.
type httpError struct {
	status int
	msgID  string
	args   []any
	err    error
}

func (e *httpError) Error() string {
	if e.err != nil {
		return e.msgID + ": " + e.err.Error()
	}
	return e.msgID
}

func (e *httpError) Unwrap() error { return e.err }

// Errors handlers return; rendered by fail.
var (
	errUnauthorized = &httpError{status: http.StatusUnauthorized, msgID: "error.unauthorized"}
	errForbidden    = &httpError{status: http.StatusForbidden, msgID: "error.forbidden"}
	errNotFound     = &httpError{status: http.StatusNotFound, msgID: "error.notFound"}
	errCrossSite    = &httpError{status: http.StatusForbidden, msgID: "error.crossSite"}
)

// badRequest is a 400 with a message id and optional template arguments.
func badRequest(msgID string, err error, args ...any) error {
	return &httpError{status: http.StatusBadRequest, msgID: msgID, args: args, err: err}
}

// classify maps any error to the status, message id and field errors a client sees.
func classify(err error) (status int, msgID string, args []any, fields validate.Errors) {
	var he *httpError
	var ve validate.Errors
	var tooBig *http.MaxBytesError
	var inUse *store.InUseError
	switch {
	case errors.Is(err, store.ErrAlreadyConverted):
		return http.StatusConflict, "clients.alreadyConverted", nil, nil
	case errors.As(err, &inUse):
		return http.StatusConflict, "masters.inUse", []any{"Count", inUse.Count}, nil
	case errors.As(err, &ve):
		return http.StatusUnprocessableEntity, "error.validation", nil, ve
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, "error.tooLarge", nil, nil
	case errors.As(err, &he):
		return he.status, he.msgID, he.args, nil
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "error.notFound", nil, nil
	case errors.Is(err, store.ErrConflict):
		return http.StatusConflict, "error.conflict", nil, nil
	}
	return http.StatusInternalServerError, "error.internal", nil, nil
}
