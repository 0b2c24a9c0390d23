package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

var (
	extractOnce sync.Once
	extractPath string
	extractErr  error
)

// extracted writes the embedded binary to
// $XDG_CACHE_HOME/sandbox-shim/SHA256/__sandbox (0755 in a 0700
// directory, through a temporary file renamed into place) unless a file
// with that content is there, and returns its path.  An existing file of
// other content (changed on disk) is replaced, never run.
func extracted() (string, error) {
	extractOnce.Do(func() {
		sum := sha256.Sum256(embedded)
		cache, err := os.UserCacheDir()
		if err != nil {
			extractErr = fmt.Errorf("sandbox: no cache directory for the embedded binary: %w", err)
			return
		}
		dir := filepath.Join(cache, "sandbox-shim", hex.EncodeToString(sum[:16]))
		path := filepath.Join(dir, "__sandbox")
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, embedded) {
			extractPath = path
			return
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			extractErr = fmt.Errorf("sandbox: %s: %w", dir, err)
			return
		}
		tmp, err := os.CreateTemp(dir, ".__sandbox-*")
		if err == nil {
			_, err = tmp.Write(embedded)
			if cerr := tmp.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Chmod(tmp.Name(), 0o755)
			}
			if err == nil {
				err = os.Rename(tmp.Name(), path)
			}
			if err != nil {
				os.Remove(tmp.Name())
			}
		}
		if err != nil {
			extractErr = fmt.Errorf("sandbox: writing the embedded binary to %s: %w", path, err)
			return
		}
		extractPath = path
	})
	return extractPath, extractErr
}
