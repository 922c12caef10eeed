package transcript_test

import (
	"strings"
	"testing"

	"github.com/fluidlb/fluid/internal/transcript"
)

const doc = "# Title\n\n" +
	"```text\n$ go run ./cmd/fluid edge -k 5\nline one\n  9 entries in 0.9 s.\n$ fluid map --start 'half:110'\nfluid: failed\n```\n\n" +
	"```text\nx = y + 1 (a formula, not a transcript)\n```\n\n" +
	"<!-- transcript: skip needs a cluster -->\n```sh\nsbatch job.sh\n```\n\n" +
	"<!-- transcript: long edge -k 5 --horizon 10 -->\n```sh\ngo run ./cmd/fluid edge -k 2..10 \\\n  --load 0.8   # the table\n# a comment\ngo test ./...\n```\n"

func TestParse(t *testing.T) {
	blocks, err := transcript.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("%d blocks, want 3 (the formula is not one)", len(blocks))
	}
	t.Run("transcript", func(t *testing.T) {
		b := blocks[0]
		if b.Kind != "text" || len(b.Commands) != 2 {
			t.Fatalf("%+v", b)
		}
		c := b.Commands[0]
		if strings.Join(c.Args, " ") != "edge -k 5" || c.Output != "line one\n  9 entries in 0.9 s.\n" || c.Line != 4 {
			t.Errorf("first command %+v", c)
		}
		if strings.Join(b.Commands[1].Args, "|") != "map|--start|half:110" || b.Commands[1].Output != "fluid: failed\n" {
			t.Errorf("second command %+v", b.Commands[1])
		}
	})
	t.Run("skip", func(t *testing.T) {
		if blocks[1].Skip != "needs a cluster" || blocks[1].Commands[0].Args != nil {
			t.Errorf("%+v", blocks[1])
		}
	})
	t.Run("long", func(t *testing.T) {
		b := blocks[2]
		if !b.Long || strings.Join(b.Short, " ") != "edge -k 5 --horizon 10" || len(b.Commands) != 2 {
			t.Fatalf("%+v", b)
		}
		if strings.Join(b.Commands[0].Args, " ") != "edge -k 2..10 --load 0.8" || b.Commands[1].Args != nil {
			t.Errorf("continued line or go test: %+v", b.Commands)
		}
	})
}

func TestParseErrors(t *testing.T) {
	for name, d := range map[string]string{
		"skip without reason":  "<!-- transcript: skip -->\n```sh\nfluid edge\n```\n",
		"long without variant": "<!-- transcript: long -->\n```sh\nfluid edge\n```\n",
		"unterminated block":   "```text\n$ fluid edge\n",
		"unterminated quote":   "```sh\nfluid edge --title 'x\n```\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := transcript.Parse(d); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestMask(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"entries", "9 entries in 0.9 s.", "9 entries in X s."},
		{"checks", "65 of 65 checks passed in 228.6 s. A check", "65 of 65 checks passed in X s. A check"},
		{"events", "2.04e+07 events in 1.884s (1.08e+07 events/s); 95%", "2.04e+07 events in Xs (X events/s); 95%"},
		// Go prints a duration in the unit its size calls for: the same
		// run may say 999ms or 1.2s.
		{"events in ms", "2.02e+07 events in 999ms (2e+07 events/s)", "2.02e+07 events in Xs (X events/s)"},
		{"events in minutes", "2.02e+09 events in 1m3.5s (3e+07 events/s)", "2.02e+09 events in Xs (X events/s)"},
		{"sweep shard", "ran 4 (4 ok, 0 failed), 0 finished before; 1.6 s", "ran 4 (4 ok, 0 failed), 0 finished before; X s"},
		{"meanfield footer", "0.02 s. Time in mean service times.", "X s. Time in mean service times."},
		{"numbers that are not times", "mean time in system 441.35 (0.4012·T)", "mean time in system 441.35 (0.4012·T)"},
		{"seconds column",
			"   k    λ  sojourn  seconds\n   2  0.9     3.28      0.0\n  10  0.9     15.5      0.2\n\nT* 0.5",
			"   k    λ  sojourn  seconds\n   2  0.9     3.28      X\n  10  0.9     15.5      X\n\nT* 0.5"},
		{"columns counted in characters",
			"   k    λ  T*(1−λ)²  seconds\n   2  0.9    2.8993      0.0",
			"   k    λ  T*(1−λ)²  seconds\n   2  0.9    2.8993      X"},
		{"ms column, left aligned",
			"N  blocking  ms\n10  0.28  0.08\n100  0.07  9.02",
			"N  blocking  ms\n10  0.28  X\n100  0.07  X"},
		{"empty cell", "case  check  seconds\na     b      0.4\n      c", "case  check  seconds\na     b      X\n      c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := transcript.Mask(c.in); got != c.want {
				t.Errorf("Mask(%q)\n = %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestReplace(t *testing.T) {
	blocks, err := transcript.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := transcript.Replace(doc, blocks, map[int]string{4: "new\nlines\n", 7: ""})
	want := strings.Replace(doc, "line one\n  9 entries in 0.9 s.\n", "new\nlines\n", 1)
	want = strings.Replace(want, "fluid: failed\n", "", 1)
	if got != want {
		t.Errorf("Replace:\n%s\nwant\n%s", got, want)
	}
	if again := transcript.Replace(doc, blocks, nil); again != doc {
		t.Error("Replace with nothing to replace changed the document")
	}
}
