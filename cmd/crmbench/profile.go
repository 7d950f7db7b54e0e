package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"time"
)

// profileServer starts taking the server's CPU profile over the next d, from Go's profiles
// on its metrics address (the server runs with --pprof when --server-profile is set), and
// returns what waits for it and writes it to --server-profile's PREFIX-<engine>.pprof: where
// a server's CPU goes under the requests of the mixed load, in their proportions (read it
// with go tool pprof bin/crm PREFIX-<engine>.pprof).
func (b *bench) profileServer(ctx context.Context, d time.Duration) (wait func() error) {
	if b.c.serverProf == "" {
		return func() error { return nil }
	}
	base, ok := strings.CutSuffix(b.metrics, "/metrics")
	if !ok {
		return func() error { return fmt.Errorf("server profile: no metrics address (%q)", b.metrics) }
	}
	path := fmt.Sprintf("%s-%s.pprof", b.c.serverProf, b.engine)
	done := make(chan error, 1)
	go func() {
		seconds := int(math.Ceil(d.Seconds()))
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, seconds), nil)
		if err != nil {
			done <- err
			return
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- fmt.Errorf("server profile: %w", err)
			return
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			done <- fmt.Errorf("server profile: %s", res.Status)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			done <- err
			return
		}
		if _, err := io.Copy(f, res.Body); err != nil {
			f.Close()
			done <- fmt.Errorf("server profile: %w", err)
			return
		}
		done <- f.Close()
	}()
	return func() error {
		if err := <-done; err != nil {
			return err
		}
		fmt.Fprintf(b.out, "server's CPU profile over the mixed load: %s\n", path)
		return nil
	}
}
