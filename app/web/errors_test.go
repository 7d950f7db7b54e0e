package web

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"crm/app/store"
	"crm/app/validate"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		status int
		msgID  string
	}{
		{validate.Errors{"email": validate.KeyInvalidEmail}, 422, "error.validation"},
		{fmt.Errorf("wrapped: %w", store.ErrNotFound), 404, "error.notFound"},
		{store.ErrConflict, 409, "error.conflict"},
		{store.ErrForbidden, 403, "error.forbidden"},
		{store.ErrAlreadyConverted, 409, "clients.alreadyConverted"},
		{&store.InUseError{Leads: 3}, 409, "masters.inUse"},
		{&store.InUseError{Clients: 3}, 409, "inputs.inUseClients"},
		{&store.InUseError{Clients: 3, Leads: 2}, 409, "inputs.inUseBoth"},
		{fmt.Errorf("delete: %w", &pgconn.PgError{Code: "23503"}), 409, "inputs.referenced"},
		{&pgconn.PgError{Code: "23505"}, 409, "inputs.duplicate"},
		{&pgconn.PgError{Code: "22021"}, 500, "error.internal"},
		{BadRequest("error.form", nil), 400, "error.form"},
		{ErrForbidden, 403, "error.forbidden"},
		{&http.MaxBytesError{Limit: 1}, 413, "error.tooLarge"},
		{errors.New("db down"), 500, "error.internal"},
	} {
		status, msgID, _, _ := Classify(tc.err)
		if status != tc.status || msgID != tc.msgID {
			t.Errorf("Classify(%v) = %d %s, want %d %s", tc.err, status, msgID, tc.status, tc.msgID)
		}
	}
}
