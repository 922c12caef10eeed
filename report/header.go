package report

import (
	_ "embed" // the version recorded in the module
	"runtime"
	"runtime/debug"
	"strings"
)

// recordedVersion is the version recorded in the module (version.txt),
// raised with each release: the version of a build that carries neither
// a module version (go install …@vX.Y.Z) nor a VCS stamp, as a build
// with GOFLAGS=-buildvcs=false or from a source archive has.
//
//go:embed version.txt
var recordedVersion string

// RecordedVersion is the version recorded in the module, without
// surrounding space.
func RecordedVersion() string { return strings.TrimSpace(recordedVersion) }

// SchemaVersion is the version of the JSON documents described here.
const SchemaVersion = 1

// Header opens every report.
type Header struct {
	SchemaVersion int    `json:"schema_version"`
	Fluid         string `json:"fluid"`   // the fluid version that wrote it (see Build)
	Command       string `json:"command"` // edge, map, jiq, jackson, sim, meanfield, validate, sweep status
}

// NewHeader is the header of a report written by command.
func NewHeader(command string) Header {
	return Header{SchemaVersion: SchemaVersion, Fluid: Build().String(), Command: command}
}

// BuildInfo describes the running fluid binary.
type BuildInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"`  // module version, "(devel)" for a local build
	Revision  string `json:"revision"` // VCS revision, "" when unknown
	Time      string `json:"time"`     // VCS commit time (RFC 3339), "" when unknown
	Modified  bool   `json:"modified"` // built from a tree with uncommitted changes
	GoVersion string `json:"go_version"`
	// Recorded: the build carried neither a module version nor a VCS
	// stamp, and Version is the one recorded in the module's source.
	Recorded bool `json:"recorded"`
}

// Build reads the binary's build information (runtime/debug.ReadBuildInfo).
func Build() BuildInfo {
	info, _ := debug.ReadBuildInfo() // nil when the binary has none
	return buildInfo(info)
}

// buildInfo reads info (nil when the binary has none), falling back to
// the version recorded in the module when the build stamped neither a
// module version nor a VCS revision.
func buildInfo(info *debug.BuildInfo) BuildInfo {
	b := BuildInfo{Module: "github.com/fluidlb/fluid", Version: "(unknown)", GoVersion: runtime.Version()}
	if info != nil {
		b.read(info)
	}
	if (b.Version == "(devel)" || b.Version == "(unknown)") && b.Revision == "" {
		b.Version, b.Recorded = RecordedVersion(), true
	}
	return b
}

func (b *BuildInfo) read(info *debug.BuildInfo) {
	b.GoVersion = info.GoVersion
	if info.Main.Path != "" {
		b.Module = info.Main.Path
	}
	if info.Main.Version != "" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
}

// String is the version in one word: the module version, followed for
// local builds by the short revision and "+dirty" for modified trees, e.g.
// "v0.3.0", "v0.0.0-20261201000244-478045ba3918+dirty" (Go stamps
// builds from a clone with such a pseudo-version) or
// "(devel)-478045ba3918" for a VCS-stamped build without a module
// version, and the version recorded in the module ("v0.4.0-dev") for a
// build with neither (VCS stamping off: GOFLAGS=-buildvcs=false).
func (b BuildInfo) String() string {
	s := b.Version
	if b.Revision != "" && s == "(devel)" {
		s += "-" + b.Revision[:min(12, len(b.Revision))]
	}
	if b.Modified && !strings.HasSuffix(s, "+dirty") {
		s += "+dirty"
	}
	return s
}
