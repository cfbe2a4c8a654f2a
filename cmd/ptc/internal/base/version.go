package base

import (
	"runtime"
	"strings"
)

// VersionInfo is what "ptc version" reports, from the build information
// the Go toolchain stamps into the binary.
type versionInfo struct {
	Module  string `json:"module"`
	Version string `json:"version"` // v1.2.3, or (devel) for a build from a checkout
	// Revision, Time and Modified describe the checkout a binary was built
	// from (go build in a git work tree stamps them; go install
	// module@version and go run do not). The JSON form always has the three
	// keys: "" and null when the build recorded nothing.
	Revision string `json:"revision"`
	Time     string `json:"time"`
	Modified *bool  `json:"modified"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

func (env *Env) Version() versionInfo {
	v := versionInfo{Module: "github.com/ptc-go/ptc", Version: "(unknown)", Go: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH}
	bi, ok := env.BuildInfo()
	if !ok || bi == nil {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			m := s.Value == "true"
			v.Modified = &m
		case "GOOS":
			v.OS = s.Value
		case "GOARCH":
			v.Arch = s.Value
		}
	}
	return v
}

// Dirty reports whether the work tree had uncommitted changes.
func (v versionInfo) Dirty() bool { return v.Modified != nil && *v.Modified }

// String is the one-line form: "v1.2.3", "(devel) 244ac7a1b2c3+dirty",
// or a pseudo-version, which names the revision already.
func (v versionInfo) String() string {
	s := v.Version
	rev := v.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(s, rev) {
		s += " " + rev
		if v.Dirty() {
			s += "+dirty"
		}
	}
	return s
}
