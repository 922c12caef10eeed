package report

import (
	"runtime/debug"
	"strings"
)

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
}

// Build reads the binary's build information (runtime/debug.ReadBuildInfo).
func Build() BuildInfo {
	b := BuildInfo{Module: "github.com/fluidlb/fluid", Version: "(unknown)"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
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
	return b
}

// String is the version in one word: the module version, followed for
// local builds by the short revision and "+dirty" for modified trees, e.g.
// "v0.3.0", "v0.0.0-20261201000244-478045ba3918+dirty" (Go stamps
// builds from a clone with such a pseudo-version) or
// "(devel)-478045ba3918" when VCS stamping is off.
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
