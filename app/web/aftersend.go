package web

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// A request's own observations — its access log line, its metrics — are made once its
// answer has left for the client, not before (issue 13). net/http writes an HTTP/1 answer
// to the connection only after the handler has returned, so whatever the outer middleware
// did after the handler held the answer back: on PostgreSQL a lead view (0.4 ms) waited
// 8–20 µs for its log line and four histograms (docs/PERFORMANCE.md, thirty-first round).
//
// After writing an answer, net/http reports its connection idle (or closed, or hijacked)
// through http.Server.ConnState, in the connection's own goroutine and before it reads the
// next request: SendFirst hooks there and runs what AfterSend put aside for the connection.
// Nothing waits in memory longer than the answer's flush, and no goroutine is started.

// afterSendKey keys a connection's pending work in its base context.
type afterSendKey struct{}

// pending is what a connection's current request put aside. A connection serves one
// HTTP/1 request at a time, and its ConnState calls come from that same goroutine, so the
// slice needs no lock.
type pending struct{ fns []func() }

func (p *pending) run() {
	for i, fn := range p.fns {
		p.fns[i] = nil
		fn()
	}
	p.fns = p.fns[:0]
}

// SendFirst sets srv up so that AfterSend's work runs once each answer has been written.
// It keeps any ConnContext and ConnState srv already has. After srv.Shutdown, drained
// waits until every connection has ended and run what it set aside (Shutdown may return
// while a connection it has just closed still writes its last request's log line).
func SendFirst(srv *http.Server) (drained func(context.Context) error) {
	var conns sync.Map      // net.Conn → *pending, from ConnContext to the connection's end
	var open sync.WaitGroup // the connections not yet ended
	connContext, connState := srv.ConnContext, srv.ConnState
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if connContext != nil {
			ctx = connContext(ctx, c)
		}
		p := &pending{}
		open.Add(1)
		conns.Store(c, p)
		return context.WithValue(ctx, afterSendKey{}, p)
	}
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateIdle:
			if p, ok := conns.Load(c); ok {
				p.(*pending).run()
			}
		case http.StateClosed, http.StateHijacked:
			if p, ok := conns.LoadAndDelete(c); ok {
				p.(*pending).run()
				open.Done()
			}
		}
		if connState != nil {
			connState(c, s)
		}
	}
	return func(ctx context.Context) error {
		done := make(chan struct{})
		go func() { open.Wait(); close(done) }()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// AfterSend runs fn once r's answer has been sent: after net/http has written it, on a
// server SendFirst set up; at once anywhere else (a test's recorder, HTTP/2, whose
// requests share their connection and are answered as they go). fn must not read r's
// routing context or anything else pooled for the request's time: read those first.
func AfterSend(r *http.Request, fn func()) {
	if p, ok := r.Context().Value(afterSendKey{}).(*pending); ok && r.ProtoMajor == 1 {
		p.fns = append(p.fns, fn)
		return
	}
	fn()
}
