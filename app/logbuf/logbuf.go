// Package logbuf holds a server's log lines briefly and writes many in one write, as
// nginx's access_log does with buffer= and flush=: a busy server then makes one write(2)
// for many requests instead of one each (docs/PERFORMANCE.md, "Forty-eighth round").
// A line waits at most the writer's interval; a warning or an error, and everything
// before it, is written at once (Handler); Close writes what is left.
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Writer buffers what is written to it and writes it to the underlying writer when the
// interval since the first line held has passed, when the buffer would outgrow its size,
// at Flush, and at Close. After Close it writes through.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	size   int
	every  time.Duration
	timer  *time.Timer // armed while the buffer holds something
	closed bool
	err    error // the last write's error, returned by the next Flush
}

// New buffers up to size bytes for w, each line for at most every.
func New(w io.Writer, size int, every time.Duration) *Writer {
	b := &Writer{w: w, size: size, every: every, buf: make([]byte, 0, size)}
	b.timer = time.AfterFunc(time.Hour, func() { b.Flush() }) //nolint:errcheck // kept for the next Flush
	b.timer.Stop()
	return b
}

// Write holds p (slog's handlers write a whole line at a time). It never fails: an error
// of the underlying writer is returned by the next Flush.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || len(p) > b.size {
		b.flushLocked()
		b.writeLocked(p)
		return len(p), nil
	}
	if len(b.buf)+len(p) > b.size {
		b.flushLocked()
	}
	if len(b.buf) == 0 {
		b.timer.Reset(b.every)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush writes what is held, and returns the error of any write since the last Flush.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	err := b.err
	b.err = nil
	return err
}

// Close writes what is held; later writes go straight through.
func (b *Writer) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return b.Flush()
}

func (b *Writer) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	b.timer.Stop()
	b.writeLocked(b.buf)
	b.buf = b.buf[:0]
}

func (b *Writer) writeLocked(p []byte) {
	if _, err := b.w.Write(p); err != nil {
		b.err = err
	}
}

// Handler passes records to h, and flushes w after a record at Warn or above, so that a
// warning or an error is read when it happens, not an interval later.
func Handler(h slog.Handler, w *Writer) slog.Handler {
	return flushing{h, w}
}

type flushing struct {
	slog.Handler
	w *Writer
}

func (f flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := f.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (f flushing) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushing{f.Handler.WithAttrs(attrs), f.w}
}

func (f flushing) WithGroup(name string) slog.Handler {
	return flushing{f.Handler.WithGroup(name), f.w}
}
