// Package files stores uploaded documents' bytes behind a small interface: a local folder
// by default, with room for an S3-compatible store later.
package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Store keeps file contents by key.
type Store interface {
	// Put writes r under key; it fails if key exists.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Open reads the file under key; fs.ErrNotExist if there is none.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the file under key; a missing file is not an error.
	Delete(ctx context.Context, key string) error
	// DeleteAll removes every file whose key starts with prefix + "/".
	DeleteAll(ctx context.Context, prefix string) error
}

// Local is a Store in a folder on disk.
type Local struct{ root string }

// NewLocal returns a store rooted at dir, creating it if needed.
func NewLocal(dir string) (*Local, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Local{root: abs}, nil
}

func (l *Local) path(key string) (string, error) {
	if key == "" || strings.Contains(key, "..") || strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("files: bad key %q", key)
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put writes to a temporary file in the same folder and renames it into place, so a
// failed upload never leaves a half-written file under its key.
func (l *Local) Put(_ context.Context, key string, r io.Reader) (int64, error) {
	p, err := l.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return 0, err
	}
	if _, err := os.Stat(p); err == nil {
		return 0, fs.ErrExist
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".upload-*")
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(tmp, r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, err
	}
	return n, nil
}

// Open reads a stored file.
func (l *Local) Open(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// Delete removes a stored file.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// DeleteAll removes a folder of files.
func (l *Local) DeleteAll(_ context.Context, prefix string) error {
	p, err := l.path(prefix)
	if err != nil {
		return err
	}
	return os.RemoveAll(p)
}
