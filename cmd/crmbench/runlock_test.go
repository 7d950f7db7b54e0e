package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A second run is refused while the first holds the lock, and told which process holds
// it; once the first lets it go, the next run takes it.
func TestOneRunAtATime(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "crmbench.lock")
	release, err := lockRun(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockRun(path) // another open file: flock(2) treats it as another holder
	if err == nil {
		t.Fatal("a second run took the lock the first holds")
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "another crmbench run") {
		t.Errorf("refusal %q does not name the run that holds the lock", err)
	}
	release()
	again, err := lockRun(path)
	if err != nil {
		t.Fatalf("after the first run let go: %v", err)
	}
	again()
}
