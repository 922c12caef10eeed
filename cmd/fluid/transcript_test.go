package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/transcript"
)

// The README and docs/*.md are tested transcripts: every command example
// runs and prints what the docs show (wall times masked). After a change
// that moves an output on purpose,
//
//	go test ./cmd/fluid -run TestDocTranscripts -update
//
// rewrites the docs' transcripts (and the short variants' golden files)
// from what the commands print; FLUID_LONG=1 runs the long examples in full
// (a few minutes) instead of their short variants.
var update = flag.Bool("update", false, "rewrite the transcripts of README.md and docs/*.md, and testdata/transcripts, from what the commands print")

// docFiles are the documents whose examples are transcripts.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

func TestDocTranscripts(t *testing.T) {
	if testing.Short() && !*update {
		t.Skip("the docs' examples take about a minute")
	}
	long := os.Getenv("FLUID_LONG") != ""
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		blocks, err := transcript.Parse(doc)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		replaced := map[int]string{}
		for _, blk := range blocks {
			t.Run(fmt.Sprintf("%s:%d", name, blk.Line), func(t *testing.T) {
				runBlock(t, blk, long, replaced)
			})
		}
		if *update && len(replaced) > 0 {
			if err := os.WriteFile(file, []byte(transcript.Replace(doc, blocks, replaced)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// runBlock runs the commands of one block in a fresh working directory:
// a transcript's outputs are compared with the docs (or recorded into
// replaced with -update), an sh block's commands must succeed.
func runBlock(t *testing.T, blk transcript.Block, long bool, replaced map[int]string) {
	if blk.Skip != "" {
		t.Skip(blk.Skip)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	// Examples write their outputs beside the repository's own (runs/,
	// docs/): here, inside the temporary directory.
	for _, sub := range []string{"docs", "runs"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if blk.Long && !long {
		runShort(t, blk.Short)
		return
	}
	for _, c := range blk.Commands {
		if c.Args == nil {
			continue // not a fluid command (go test, go build, sbatch, …)
		}
		got, code := runDoc(c.Args)
		if blk.Kind == "sh" {
			if code != 0 {
				t.Errorf("line %d: %s: exit status %d:\n%s", c.Line, c.Text, code, got)
			}
			continue
		}
		diff := transcriptDiff(c.Output, got)
		if *update {
			// Only what changed is rewritten: the wall times the docs show
			// stay those of one measurement until the output changes.
			if diff != "" {
				replaced[c.Line] = got
			}
			continue
		}
		if diff != "" {
			t.Errorf("line %d: %s prints other than the docs show (go test ./cmd/fluid -run TestDocTranscripts -update rewrites them):\n%s", c.Line, c.Text, diff)
		}
	}
}

// runDoc runs a documented command in-process: its standard output, then
// its standard error, as a terminal would show them, and its exit status.
func runDoc(args []string) (string, int) {
	var out, errb bytes.Buffer
	code := runMain(args, &out, &errb)
	return out.String() + errb.String(), code
}

// runShort runs a long example's short variant and compares it with its
// golden file.
func runShort(t *testing.T, args []string) {
	got, code := runDoc(args)
	if code != 0 && code != 1 {
		t.Fatalf("short variant fluid %s: exit status %d:\n%s", strings.Join(args, " "), code, got)
	}
	golden := filepath.Join(absRepoRoot, "cmd", "fluid", "testdata", "transcripts", goldenName(args))
	if old, err := os.ReadFile(golden); *update && (err != nil || transcriptDiff(string(old), got) != "") {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	} else if *update {
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/fluid -run TestDocTranscripts -update writes it)", err)
	}
	if diff := transcriptDiff(string(want), got); diff != "" {
		t.Errorf("short variant fluid %s prints other than %s:\n%s", strings.Join(args, " "), golden, diff)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9.,:=_-]+`)

func goldenName(args []string) string {
	return unsafeName.ReplaceAllString(strings.Join(args, "_"), "") + ".txt"
}

// absRepoRoot is the repository's root as an absolute path (the
// transcripts run in temporary directories).
var absRepoRoot = func() string {
	abs, _ := filepath.Abs(repoRoot)
	return abs
}()

// transcriptDiff compares the docs' output with a command's, both masked,
// and describes the first lines that differ ("" when they agree).
func transcriptDiff(want, got string) string {
	w := strings.Split(strings.TrimRight(transcript.Mask(want), "\n"), "\n")
	g := strings.Split(strings.TrimRight(transcript.Mask(got), "\n"), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 6; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "  line %d\n    docs: %s\n    now:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// The test fails when a documented output changes: an edited expectation
// in a copy of the README is reported, the unedited one is not.
func TestDocTranscriptsCanFail(t *testing.T) {
	doc := "```text\n$ fluid jiq\n" + mustRun(t, "jiq") + "```\n"
	blocks, err := transcript.Parse(doc)
	if err != nil || len(blocks) != 1 {
		t.Fatal(blocks, err)
	}
	c := blocks[0].Commands[0]
	got, _ := runDoc(c.Args)
	if d := transcriptDiff(c.Output, got); d != "" {
		t.Fatalf("the unedited transcript differs:\n%s", d)
	}
	edited := strings.Replace(c.Output, "0.54", "0.55", 1)
	if edited == c.Output {
		t.Fatal("nothing to edit")
	}
	if d := transcriptDiff(edited, got); !strings.Contains(d, "0.55") {
		t.Errorf("an edited expectation passed: %q", d)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, code := runDoc(args)
	if code != 0 {
		t.Fatalf("fluid %v: exit %d: %s", args, code, out)
	}
	return out
}
