package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/report"
)

func TestWriteVersion(t *testing.T) {
	var b strings.Builder
	info := report.BuildInfo{Module: "github.com/fluidlb/fluid", Version: "(devel)", Revision: "478045ba39189b852c2d74edede1e6da78b57e99",
		Time: "2026-12-01T00:02:44Z", Modified: true, GoVersion: "go1.26.8"}
	if err := writeVersion(&b, info, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fluid (devel)-478045ba3918+dirty\n", "module    github.com/fluidlb/fluid\n",
		"revision  478045ba39189b852c2d74edede1e6da78b57e99 (uncommitted changes)\n", "committed 2026-12-01T00:02:44Z\n", "go        go1.26.8\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	// A tagged module version is printed as it is.
	if s := (report.BuildInfo{Version: "v0.3.0", Revision: "abc"}).String(); s != "v0.3.0" {
		t.Errorf("tagged: %q", s)
	}
}

// TestInstalledBinary builds the command as go install would and runs
// fluid version and fluid completion bash (which bash must accept).
func TestInstalledBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "fluid")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("fluid version: %v\n%s", err, out)
	}
	for _, want := range []string{"fluid ", "module    github.com/fluidlb/fluid\n", "revision  ", "go        go1."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("fluid version: missing %q in\n%s", want, out)
		}
	}
	script := filepath.Join(t.TempDir(), "fluid.bash")
	if out, err := exec.Command("sh", "-c", bin+" completion bash > "+script).CombinedOutput(); err != nil {
		t.Fatalf("fluid completion bash: %v\n%s", err, out)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to check the completion script")
	}
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Errorf("bash -n rejects the completion script: %v\n%s", err, out)
	}
	for _, sh := range []string{"zsh", "fish", "powershell"} {
		if out, err := exec.Command(bin, "completion", sh).Output(); err != nil || len(out) < 100 {
			t.Errorf("fluid completion %s: %v", sh, err)
		}
	}
}

// TestVersionWithoutVCS: a build with VCS stamping off still says which
// version it is (the one recorded in the module), not "(devel)".
func TestVersionWithoutVCS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "fluid")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("fluid version: %v\n%s", err, out)
	}
	want := "fluid " + report.RecordedVersion() + " (recorded in the module; this build has no VCS stamp)\n"
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("fluid version without VCS stamping:\n%s\nwant it to start %q", out, want)
	}
}
