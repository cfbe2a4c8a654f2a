package shared

import (
	"os"
	"path/filepath"
)

// Dir returns the shared directory: $PTC_SHARED if set, else ../shared next
// to the module root. ok is false when it does not exist.
func Dir() (dir string, ok bool) {
	if d := os.Getenv("PTC_SHARED"); d != "" {
		return d, isDir(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared")
			return s, isDir(s)
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// Path joins elem to the shared directory.
func Path(elem ...string) (string, bool) {
	d, ok := Dir()
	if !ok {
		return "", false
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	_, err := os.Stat(p)
	return p, err == nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
