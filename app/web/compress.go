package web

import (
	"net/http"
	"strings"
	"sync"

	// klauspost's gzip writes the same format as the standard library's, faster at a
	// given size (docs/PERFORMANCE.md "Tenth round").
	"github.com/klauspost/compress/gzip"
)

// CompressMin is the smallest body Compress compresses: below it gzip's header and the
// encoder's setup cost more than the bytes saved (a lead view's JSON is about 1 KB).
const CompressMin = 1024

// The gzip levels (klauspost/compress's scale). JSON: level 1, list page 1 in 31 µs (the
// standard library's level 1 took 52 µs for a body 2 % larger). Pages, styles and scripts:
// level 8, as small as the standard library's level 5 gave or smaller (the admin script
// 20,886 bytes instead of 21,047) in about its time; its level 5 would have added 1.1 KB
// to an admin page's first load.
const (
	jsonLevel = 1
	pageLevel = 8
)

// Compress gzips answers of the given content types for clients that accept it, as chi's
// middleware.Compress did, with two differences measured on the lead API (issue 13,
// docs/PERFORMANCE.md): a body under CompressMin goes out as it is, and JSON is compressed
// fast (jsonLevel) while pages, styles and scripts are compressed small (pageLevel), for the
// page-weight budgets.
//
// The body's first CompressMin bytes are held until they decide; a Flush sends what is
// held uncompressed (streams stay streams).
func Compress(types ...string) func(http.Handler) http.Handler {
	allowed := map[string]bool{}
	for _, t := range types {
		allowed[t] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !acceptsGzip(r.Header.Get("Accept-Encoding")) {
				next.ServeHTTP(w, r)
				return
			}
			g := &gzipGate{ResponseWriter: w, allowed: allowed}
			defer g.finish()
			next.ServeHTTP(g, r)
		})
	}
}

func acceptsGzip(h string) bool {
	for part := range strings.SplitSeq(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") || strings.TrimSpace(name) == "*" {
			return strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0"
		}
	}
	return false
}

var gzipPools = map[int]*sync.Pool{}

func init() {
	for _, level := range []int{jsonLevel, pageLevel} {
		gzipPools[level] = &sync.Pool{New: func() any {
			w, _ := gzip.NewWriterLevel(nil, level)
			return w
		}}
	}
}

// gzipGate holds the status and the body's first bytes until it knows whether to compress.
type gzipGate struct {
	http.ResponseWriter
	allowed map[string]bool
	status  int
	held    []byte
	decided bool
	gz      *gzip.Writer
	level   int
}

// compressLevel is the level the answer is compressed at, 0 for none (not a compressible
// type, or already encoded).
func (g *gzipGate) compressLevel() int {
	h := g.Header()
	if h.Get("Content-Encoding") != "" {
		return 0
	}
	ct, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	ct = strings.TrimSpace(ct)
	if !g.allowed[ct] {
		return 0
	}
	if ct == "application/json" {
		return jsonLevel
	}
	return pageLevel
}

func (g *gzipGate) WriteHeader(code int) {
	if g.decided {
		g.ResponseWriter.WriteHeader(code)
		return
	}
	if code < 200 { // informational answers go through
		g.ResponseWriter.WriteHeader(code)
		return
	}
	if g.status == 0 {
		g.status = code
	}
	if code == http.StatusNoContent || code == http.StatusNotModified || code == http.StatusPartialContent || g.compressLevel() == 0 {
		g.decide(false)
	}
}

func (g *gzipGate) Write(p []byte) (int, error) {
	if !g.decided {
		if g.status == 0 {
			g.WriteHeader(http.StatusOK)
		}
		if !g.decided {
			if len(g.held)+len(p) < CompressMin {
				g.held = append(g.held, p...)
				return len(p), nil
			}
			g.decide(true)
		}
	}
	if g.gz != nil {
		return g.gz.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// decide sends the status, with the encoding when compressing, and what is held.
func (g *gzipGate) decide(compress bool) {
	g.decided = true
	level := g.compressLevel()
	if level != 0 {
		g.Header().Add("Vary", "Accept-Encoding")
	}
	if compress && level != 0 {
		g.Header().Set("Content-Encoding", "gzip")
		g.Header().Del("Content-Length")
		g.level = level
		g.gz = gzipPools[level].Get().(*gzip.Writer)
		g.gz.Reset(g.ResponseWriter)
	}
	if g.status == 0 {
		g.status = http.StatusOK
	}
	g.ResponseWriter.WriteHeader(g.status)
	if len(g.held) > 0 {
		held := g.held
		g.held = nil
		if g.gz != nil {
			_, _ = g.gz.Write(held)
		} else {
			_, _ = g.ResponseWriter.Write(held)
		}
	}
}

// Flush sends what is held as it is (or flushes the compressor) and the connection's buffer.
func (g *gzipGate) Flush() {
	if !g.decided {
		g.decide(false)
	}
	if g.gz != nil {
		_ = g.gz.Flush()
	}
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (g *gzipGate) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// finish ends the answer once the handler is done: a short body goes out uncompressed.
func (g *gzipGate) finish() {
	if !g.decided {
		if g.status == 0 && len(g.held) == 0 {
			return // nothing written: net/http answers 200 with no body
		}
		g.decide(false)
	}
	if g.gz != nil {
		_ = g.gz.Close()
		g.gz.Reset(nil)
		gzipPools[g.level].Put(g.gz)
		g.gz = nil
	}
}
