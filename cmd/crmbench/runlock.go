package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// One run at a time on a machine. Two runs share the two cores, so each one's figures are
// the other's load, and they share the databases: a second run started while the first
// was importing died on the first's rows ("seeded: 82000 leads of the file, want 0"), and
// every figure both took while they overlapped was spoiled (docs/PERFORMANCE.md,
// "Fifty-third round"). The lock is flock(2) on a file of the machine's temporary folder:
// the kernel lets it go when the holding process ends, however it ends, so a run that was
// killed never leaves it held.

// runLockPath is the lock file every run of the machine takes.
func runLockPath() string { return filepath.Join(os.TempDir(), "crmbench.lock") }

// lockRun takes the lock at path, or says which run holds it. release lets it go.
func lockRun(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("another crmbench run holds %s (%s): two runs on one machine share its cores "+
				"and its databases and spoil each other's figures; wait for it to end or stop it", path, who)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Who holds it, for the message a second run prints; written only while holding it.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(fmt.Sprintf("pid %d, started %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0)
	}
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
