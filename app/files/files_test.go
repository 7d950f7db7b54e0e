package files

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
)

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection cut") }

func TestLocalStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Put(ctx, "1/lead/a.txt", strings.NewReader("hello")); err != nil || n != 5 {
		t.Fatalf("put: %d %v", n, err)
	}
	if _, err := s.Put(ctx, "1/lead/a.txt", strings.NewReader("again")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("overwrite: %v", err)
	}
	rc, err := s.Open(ctx, "1/lead/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "hello" {
		t.Fatalf("read %q", b)
	}
	// A failed upload leaves nothing behind, not even a temporary file.
	if _, err := s.Put(ctx, "1/lead/b.txt", io.MultiReader(strings.NewReader("part"), failingReader{})); err == nil {
		t.Fatal("failed upload succeeded")
	}
	entries, _ := os.ReadDir(dir + "/1/lead")
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := s.Delete(ctx, "1/lead/a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "1/lead/a.txt"); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.Put(ctx, "../escape", strings.NewReader("x")); err == nil {
		t.Fatal("key escaping the root accepted")
	}
}
