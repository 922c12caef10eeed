package report

import (
	"regexp"
	"runtime/debug"
	"testing"
)

// TestBuildFallback: a build without a module version or VCS stamp (go
// build -buildvcs=false, a source archive) reports the version recorded
// in the module, marked as such; a stamped build reports its stamp.
func TestBuildFallback(t *testing.T) {
	// A release version, optionally with a pre-release suffix: what
	// go install …@VERSION accepts.
	if v := RecordedVersion(); !regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(v) {
		t.Fatalf("version.txt holds %q, not a semantic version vX.Y.Z[-pre]", v)
	}
	main := debug.Module{Path: "github.com/fluidlb/fluid", Version: "(devel)"}
	for _, tc := range []struct {
		name     string
		info     *debug.BuildInfo
		version  string
		recorded bool
	}{
		{"no build info", nil, RecordedVersion(), true},
		{"no VCS stamp", &debug.BuildInfo{GoVersion: "go1.26.8", Main: main}, RecordedVersion(), true},
		{"VCS stamp", &debug.BuildInfo{GoVersion: "go1.26.8", Main: main,
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "478045ba39189b852c2d74edede1e6da78b57e99"}}}, "(devel)-478045ba3918", false},
		{"module version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: main.Path, Version: "v0.3.0"}}, "v0.3.0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := buildInfo(tc.info)
			if b.String() != tc.version || b.Recorded != tc.recorded {
				t.Errorf("version %q recorded %v, want %q %v", b.String(), b.Recorded, tc.version, tc.recorded)
			}
			if b.GoVersion == "" {
				t.Error("no Go version")
			}
		})
	}
}
