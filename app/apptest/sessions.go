package apptest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"time"

	"github.com/alexedwards/scs/v2"
)

// AgeSession rewrites the stored session behind the client's cookie as it would be after
// d had passed without a request: its last activity, its absolute deadline and the row's
// expiry all d earlier. Tests of the timeouts use it instead of sleeping.
func (c *Client) AgeSession(d time.Duration) {
	c.Env.T.Helper()
	ctx := context.Background()
	u, _ := url.Parse(c.Env.Srv.URL)
	var token string
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == "crm_session" {
			token = ck.Value
		}
	}
	if token == "" {
		c.Env.T.Fatal("AgeSession: the client has no session cookie")
	}
	sum := sha256.Sum256([]byte(token)) // the store keeps the token hashed, as scs does
	key := base64.RawURLEncoding.EncodeToString(sum[:])
	store := c.Env.DB.Sessions()
	b, found, err := store.FindCtx(ctx, key)
	if err != nil || !found {
		c.Env.T.Fatalf("AgeSession: session not found (%v)", err)
	}
	codec := scs.GobCodec{}
	deadline, values, err := codec.Decode(b)
	if err != nil {
		c.Env.T.Fatal(err)
	}
	if seen, ok := values["seen_at"].(int64); ok {
		values["seen_at"] = seen - d.Milliseconds()
	}
	deadline = deadline.Add(-d)
	if b, err = codec.Encode(deadline, values); err != nil {
		c.Env.T.Fatal(err)
	}
	if err := store.CommitCtx(ctx, key, b, deadline); err != nil {
		c.Env.T.Fatal(err)
	}
}
