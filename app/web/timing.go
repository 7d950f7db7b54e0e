package web

import (
	"net/http"
	"strconv"
	"time"

	"crm/app/store"
)

// QueryStats counts each request's SQL statements and their time (store.QueryStats in the
// request's context): the metrics read them per route (Metrics.Middleware), and with
// serverTiming (development: --server-timing, on with --demo) every answer — page, htmx
// fragment, JSON — carries them in a Server-Timing header, set just before the status is
// written:
//
//	Server-Timing: db;dur=1.234;desc="5 statements", app;dur=2.345
//
// db is the SQL time so far, app the whole request's so far. It goes before everything
// that needs the counts.
func QueryStats(serverTiming bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, st := store.WithQueryStats(r.Context())
			r = r.WithContext(ctx)
			if serverTiming {
				w = &timingWriter{ResponseWriter: w, start: time.Now(), stats: st}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// timingWriter adds the Server-Timing header when the status is written.
type timingWriter struct {
	http.ResponseWriter
	start time.Time
	stats *store.QueryStats
	done  bool
}

func (w *timingWriter) WriteHeader(code int) {
	if !w.done && code >= 200 {
		w.done = true
		w.Header().Set("Server-Timing", ServerTiming(w.stats, time.Since(w.start)))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *timingWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming answers streaming.
func (w *timingWriter) Flush() {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *timingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServerTiming is the Server-Timing value for the statements counted and the request's
// time so far (milliseconds, as the header wants them).
func ServerTiming(st *store.QueryStats, total time.Duration) string {
	b := make([]byte, 0, 96)
	b = append(b, "db;dur="...)
	b = strconv.AppendFloat(b, float64(st.SQLTime().Microseconds())/1000, 'f', 3, 64)
	b = append(b, `;desc="`...)
	b = strconv.AppendInt(b, st.Statements(), 10)
	b = append(b, ` statements`...)
	if n := st.TenantSwitches(); n > 0 {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ` tenant switches`...)
	}
	b = append(b, `", app;dur=`...)
	b = strconv.AppendFloat(b, float64(total.Microseconds())/1000, 'f', 3, 64)
	return string(b)
}
