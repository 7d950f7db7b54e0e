package reminders

import (
	"testing"

	"crm/app/validate"
	"crm/app/web/webtest"
)

// FuzzReminderPayload: the reminder create/update payload decodes or is refused with a
// client error, and its conversion refuses a bad time with a field error.
func FuzzReminderPayload(f *testing.F) {
	for _, s := range []string{`{"lead_id":1,"title":"Call","note":"x\ny","due_at":"2030-01-02T10:00:00Z","assignee_id":2}`,
		`{"title":"\u0000"}`, `{"due_at":"tomorrow"}`, `{"due_at":"2030-01-02T25:00:00Z"}`, `{"done":"yes"}`, `{"note":"\u0085"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, ok := webtest.DecodeJSON[reminderPayload](t, body)
		if !ok {
			return
		}
		if _, err := p.input(); err != nil {
			if _, field := err.(validate.Errors); !field {
				t.Fatalf("%q: %v is not a field error", body, err)
			}
		}
	})
}
