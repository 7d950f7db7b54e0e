package settings

import (
	"testing"

	"crm/app/store"
	"crm/app/web/webtest"
)

// FuzzSettingsPayloads: a master's name, the stage order and the stage settings.
func FuzzSettingsPayloads(f *testing.F) {
	for _, s := range []string{`{"name":"Hot"}`, `{"name":"a\u0000b"}`, `{"name":"a\nb"}`, `{"ids":[3,1,2]}`, `{"ids":[1,"x"]}`,
		`{"default_stage_id":1,"won_stage_id":2,"lost_stage_id":3}`, `{"won_stage_id":-1}`, `{"name":["x"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		webtest.DecodeJSON[masterPayload](t, body)
		webtest.DecodeJSON[orderPayload](t, body)
		webtest.DecodeJSON[store.StageSettings](t, body)
	})
}
