// Package sqlitemutex gives the translated SQLite (modernc.org/sqlite) mutexes written in
// Go, in which a connection's own mutex costs nothing.
//
// The driver opens every connection SQLITE_OPEN_FULLMUTEX (serialized mode, with no setting
// to open it otherwise), so every call into SQLite — each column of each row read, each
// value bound — takes and gives back the connection's recursive mutex, which on Linux is
// libc's emulated pthread_mutex: a sixth of a SQLite lead list page's CPU in process. The
// mutex guards nothing here: database/sql hands a connection to one goroutine at a time,
// and the driver's own state around each call (its libc.TLS) is already unsafe to share,
// as its documentation says; sqlite3_interrupt, the one call made from another goroutine,
// is an atomic store that takes no mutex. This is what SQLite's multi-thread mode
// (SQLITE_OPEN_NOMUTEX) does, which mattn/go-sqlite3 and crawshaw.io/sqlite offer.
//
// Every other mutex stays a real one, as a sync.Mutex: the static mutexes that guard what
// the process's connections share (the list of open files and their locks, the page
// cache's memory, the random number generator) and the "fast" ones (a WAL file's shared
// index, which every connection to the database reads). SQLite allocates recursive
// mutexes for two things only, a connection's and the one around its own initialization
// (and RBU's, which the store does not use): Install runs that initialization itself, once,
// before any connection is opened, so no two goroutines can be in it at once.
package sqlitemutex

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// kind is what a mutex does when SQLite enters it: lock, or nothing.
type kind int32

const (
	real kind = iota + 1 // a sync.Mutex: static and fast mutexes
	free                 // a recursive mutex: a connection's, and initialization's
)

// mutex is what SQLite's sqlite3_mutex pointers point to: a static one is a variable of
// this package, as SQLite's own static mutexes are variables of the translated C (the race
// detector sees only memory of Go's, and the page cache that all connections share is
// guarded by one of them); a fast one comes from libc, as SQLite's own do. Neither moves.
type mutex struct {
	kind kind
	mu   sync.Mutex
}

var (
	once          sync.Once
	installErr    error
	staticMutexes [sqlite3.SQLITE_MUTEX_STATIC_VFS3 - sqlite3.SQLITE_MUTEX_STATIC_MAIN + 1]mutex
	freeMutex     = mutex{kind: free} // the one mutex every recursive allocation returns
	freeAllocs    atomic.Int64        // recursive mutexes handed out: connections opened, plus one
)

// Install makes these mutexes SQLite's and initializes SQLite, once a process, before the
// first connection is opened (the store calls it before it opens a SQLite database). If
// SQLite had already been initialized in this process, it changes nothing and says so:
// the connections keep the driver's serialized mode, slower but as correct.
func Install() error {
	once.Do(func() { installErr = install() })
	return installErr
}

// Installed reports how many recursive mutexes SQLite has asked for since Install: one for
// its initialization and one for each connection opened since. 0 if Install failed.
func Installed() int64 { return freeAllocs.Load() }

func install() error {
	tls := libc.NewTLS()
	defer tls.Close()
	for i := range staticMutexes {
		staticMutexes[i].kind = real
	}
	mp := libc.Xcalloc(tls, 1, types.Size_t(unsafe.Sizeof(sqlite3.Sqlite3_mutex_methods{})))
	if mp == 0 {
		return fmt.Errorf("sqlitemutex: out of memory")
	}
	*at[sqlite3.Sqlite3_mutex_methods](mp) = sqlite3.Sqlite3_mutex_methods{
		FxMutexInit:    cFunc(mutexInit),
		FxMutexEnd:     cFunc(mutexEnd),
		FxMutexAlloc:   cFunc(mutexAlloc),
		FxMutexFree:    cFunc(mutexFree),
		FxMutexEnter:   cFunc(mutexEnter),
		FxMutexTry:     cFunc(mutexTry),
		FxMutexLeave:   cFunc(mutexLeave),
		FxMutexHeld:    cFunc(mutexHeld),
		FxMutexNotheld: cFunc(mutexHeld),
	}
	va := libc.Xmalloc(tls, types.Size_t(unsafe.Sizeof(uintptr(0))))
	if va == 0 {
		return fmt.Errorf("sqlitemutex: out of memory")
	}
	defer libc.Xfree(tls, va)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MUTEX, libc.VaList(va, mp)); rc != sqlite3.SQLITE_OK {
		// SQLITE_MISUSE: SQLite was initialized before, with its own mutexes.
		libc.Xfree(tls, mp)
		return fmt.Errorf("sqlitemutex: sqlite3_config(SQLITE_CONFIG_MUTEX) returned %d: SQLite was already in use in this process", rc)
	}
	if rc := sqlite3.Xsqlite3_initialize(tls); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("sqlitemutex: sqlite3_initialize returned %d", rc)
	}
	return nil
}

// cFunc is f as a C function pointer for the translated SQLite, which calls it with the
// calling connection's libc.TLS (the representation of a Go func value: a pointer to its
// code pointer, which for a top-level function lives in read-only data and never moves).
func cFunc[T any](f T) uintptr { return *(*uintptr)(unsafe.Pointer(&f)) }

// at is the memory at p as a T: an address libc gave (outside Go's heap, which the
// collector neither moves nor frees) or one of this package's variables (which never move).
func at[T any](p uintptr) *T { return *(**T)(unsafe.Pointer(&p)) }

func alloc(tls *libc.TLS, k kind) uintptr {
	p := libc.Xcalloc(tls, 1, types.Size_t(unsafe.Sizeof(mutex{})))
	if p != 0 {
		at[mutex](p).kind = k
	}
	return p
}

func mutexInit(*libc.TLS) int32 { return sqlite3.SQLITE_OK }
func mutexEnd(*libc.TLS) int32  { return sqlite3.SQLITE_OK }

func mutexAlloc(tls *libc.TLS, typ int32) uintptr {
	switch {
	case typ == sqlite3.SQLITE_MUTEX_FAST:
		return alloc(tls, real)
	case typ == sqlite3.SQLITE_MUTEX_RECURSIVE:
		freeAllocs.Add(1)
		return uintptr(unsafe.Pointer(&freeMutex))
	case typ >= sqlite3.SQLITE_MUTEX_STATIC_MAIN && typ <= sqlite3.SQLITE_MUTEX_STATIC_VFS3:
		return uintptr(unsafe.Pointer(&staticMutexes[typ-sqlite3.SQLITE_MUTEX_STATIC_MAIN]))
	}
	return 0
}

// mutexFree frees a fast mutex. SQLite frees no static one, and a connection's is the one
// free mutex, kept.
func mutexFree(tls *libc.TLS, p uintptr) {
	if p != uintptr(unsafe.Pointer(&freeMutex)) && !isStatic(p) {
		libc.Xfree(tls, p)
	}
}

func isStatic(p uintptr) bool {
	first := uintptr(unsafe.Pointer(&staticMutexes[0]))
	return p >= first && p < first+unsafe.Sizeof(staticMutexes)
}

func mutexEnter(_ *libc.TLS, p uintptr) {
	if m := at[mutex](p); m.kind == real {
		m.mu.Lock()
	}
}

func mutexTry(_ *libc.TLS, p uintptr) int32 {
	if m := at[mutex](p); m.kind == real && !m.mu.TryLock() {
		return sqlite3.SQLITE_BUSY
	}
	return sqlite3.SQLITE_OK
}

func mutexLeave(_ *libc.TLS, p uintptr) {
	if m := at[mutex](p); m.kind == real {
		m.mu.Unlock()
	}
}

// mutexHeld serves sqlite3_mutex_held and _notheld, which only SQLite's assertions call
// (compiled out of this build): "true", as SQLite's own mutexes without debugging answer.
func mutexHeld(*libc.TLS, uintptr) int32 { return 1 }
