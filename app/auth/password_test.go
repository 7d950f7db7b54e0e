package auth

import (
	"strings"
	"testing"
)

// TestPasswordHashIsAtOWASPsCost: a hash is argon2id at OWASP's minimum cost, and checks
// the right password only. (This package's tests do not lower the cost.)
func TestPasswordHashIsAtOWASPsCost(t *testing.T) {
	hash, err := HashPassword("Correct horse 1!")
	if err != nil {
		t.Fatal(err)
	}
	if want := "$argon2id$v=19$m=19456,t=2,p=1$"; !strings.HasPrefix(hash, want) {
		t.Fatalf("hash %q, want it to start with %q", hash, want)
	}
	if !CheckPassword("Correct horse 1!", hash) {
		t.Error("the right password does not check")
	}
	if CheckPassword("Correct horse 2!", hash) {
		t.Error("a wrong password checks")
	}
	if CheckNoAccount("Correct horse 1!") {
		t.Error("CheckNoAccount reported true")
	}
}

// TestLowerCostForTests: the cheap hashes check too, and so do the hashes made before.
func TestLowerCostForTests(t *testing.T) {
	before, err := HashPassword("Before 1!")
	if err != nil {
		t.Fatal(err)
	}
	saved := passwordParams.Load()
	t.Cleanup(func() { passwordParams.Store(saved) })
	LowerCostForTests()
	cheap, err := HashPassword("After 1!")
	if err != nil {
		t.Fatal(err)
	}
	if want := "$argon2id$v=19$m=64,t=1,p=1$"; !strings.HasPrefix(cheap, want) {
		t.Fatalf("hash %q, want it to start with %q", cheap, want)
	}
	if !CheckPassword("After 1!", cheap) || CheckPassword("After 2!", cheap) {
		t.Error("a cheap hash checks the wrong passwords")
	}
	if !CheckPassword("Before 1!", before) {
		t.Error("a hash made at OWASP's cost no longer checks")
	}
}
