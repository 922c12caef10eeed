package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/fluidlb/fluid/plots"
)

// The user-facing text of fluid (README, docs, --help, figure titles and
// legends, package documentation) must explain itself: it may cite papers
// and published studies by title, never the internal notes the project
// started from, and "seed" only ever means a random seed.

// repoRoot is the repository root, seen from this package's directory (go
// test runs in cmd/fluid).
const repoRoot = "../.."

// forbiddenText lists what user-facing text must not contain: substrings
// (SPEC exactly, the others in any case) and patterns that use "seed" for
// a document ("seed 004", "the three seeds' systems").
var (
	forbiddenExact = []string{"SPEC"}
	forbiddenFold  = []string{"seed 00", "../shared", "/work/", "seeds/"}
	forbiddenRe    = regexp.MustCompile(`(?i)\bseeds?'?\s+(?:\d{3}|systems?|documents?|files?)\b`)
	spaceRe        = regexp.MustCompile(`\s+`)
)

// forbidden returns the forbidden words in text, each with its context.
// Runs of white space count as one space, so a phrase broken across lines
// is still found.
func forbidden(text string) []string {
	text = spaceRe.ReplaceAllString(text, " ")
	lower := strings.ToLower(text)
	var found []string
	context := func(i, n int) string {
		lo, hi := max(0, i-40), min(len(text), i+n+40)
		return fmt.Sprintf("%q in …%s…", text[i:i+n], text[lo:hi])
	}
	for _, w := range forbiddenExact {
		if i := strings.Index(text, w); i >= 0 {
			found = append(found, context(i, len(w)))
		}
	}
	for _, w := range forbiddenFold {
		if i := strings.Index(lower, strings.ToLower(w)); i >= 0 {
			found = append(found, context(i, len(w)))
		}
	}
	if loc := forbiddenRe.FindStringIndex(text); loc != nil {
		found = append(found, context(loc[0], loc[1]-loc[0]))
	}
	return found
}

// TestTextForbiddenCanFail makes sure the checker finds each forbidden
// word, also across a line break, and passes ordinary text about seeds.
func TestTextForbiddenCanFail(t *testing.T) {
	for _, bad := range []string{
		"as SPEC §1.3 says", "Seed 000 measured", "seed\n004's figure", "see ../shared/x",
		"in /work/shared", "read seeds/002.txt", "all three seeds' systems", "the seed 002 table",
	} {
		if len(forbidden(bad)) == 0 {
			t.Errorf("%q passes the check", bad)
		}
	}
	for _, good := range []string{
		"random seed (default 1)", "a seed per task derived from the sweep's --seed",
		"Simulation: N = 100, seed 1", "the grid and the seeds.", "farm.TipThreshold",
	} {
		if f := forbidden(good); len(f) != 0 {
			t.Errorf("%q fails the check: %v", good, f)
		}
	}
}

// TestTextDocs checks the README and every Markdown file under docs.
func TestTextDocs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(repoRoot, "README.md")}, files...)
	if !containsSuffix(files, filepath.Join("docs", "models.md")) {
		t.Errorf("docs/models.md is missing (files %v)", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range forbidden(string(b)) {
			t.Errorf("%s: %s", f, w)
		}
	}
}

func containsSuffix(files []string, suffix string) bool {
	for _, f := range files {
		if strings.HasSuffix(f, suffix) {
			return true
		}
	}
	return false
}

// TestTextHelp renders the --help of every command and subcommand, as a
// user sees it, and checks it.
func TestTextHelp(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRoot(), nil)
	if len(paths) < 10 {
		t.Fatalf("only %d commands found: %v", len(paths), paths)
	}
	for _, path := range paths {
		var out, errb bytes.Buffer
		args := append(append([]string(nil), path...), "--help")
		if err := run(args, &out, &errb); err != nil {
			t.Errorf("fluid %s: %v", strings.Join(args, " "), err)
			continue
		}
		text := out.String() + errb.String()
		if c, _, _ := newRoot().Find(path); c != nil && c.IsAdditionalHelpTopicCommand() {
			if !strings.Contains(text, strings.SplitN(c.Long, "\n", 2)[0]) {
				t.Errorf("help topic %s printed:\n%s", strings.Join(path, " "), text)
			}
		} else if !strings.Contains(text, "Usage:") {
			t.Errorf("fluid %s printed no help:\n%s", strings.Join(args, " "), text)
		}
		for _, w := range forbidden(text) {
			t.Errorf("fluid %s: %s", strings.Join(args, " "), w)
		}
	}
}

// TestTextFigures checks the figure titles and every string literal of
// package plots (legends, axis labels, captions).
func TestTextFigures(t *testing.T) {
	names := plots.Names()
	if len(names) == 0 {
		t.Fatal("no figures")
	}
	for _, name := range names {
		title := plots.Title(name)
		if title == "" {
			t.Errorf("figure %s has no title", name)
		}
		for _, w := range forbidden(name + " " + title) {
			t.Errorf("figure %s: %s", name, w)
		}
	}
	files, err := filepath.Glob(filepath.Join(repoRoot, "plots", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literals := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			literals++
			for _, w := range forbidden(s) {
				t.Errorf("%s: %s", fset.Position(lit.Pos()), w)
			}
			return true
		})
	}
	if literals < 50 {
		t.Errorf("only %d string literals in plots: the scan is broken", literals)
	}
}

// documented are the packages whose documentation must point to the
// written-out models.
var documented = []string{
	"meanfield/staleboard", "meanfield/jiq", "meanfield/bestofd", "jackson", "fixedpoint", "ode",
	"validate", "sim", "sim/tipping", "farm", "lists", "table", "sweep", "plots", "outcome", "cmd/fluid",
}

// TestTextPackageDocs checks that every package's documentation links
// docs/models.md, that it mentions nothing forbidden, and that every link
// to a section of docs/models.md, anywhere in the repository's Go files
// and Markdown, names a heading that exists.
func TestTextPackageDocs(t *testing.T) {
	anchors := modelAnchors(t)
	fset := token.NewFileSet()
	for _, dir := range documented {
		files, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var doc strings.Builder
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if file.Doc != nil {
				doc.WriteString(file.Doc.Text())
			}
		}
		if !strings.Contains(doc.String(), "docs/models.md") {
			t.Errorf("package %s: its documentation does not link docs/models.md", dir)
		}
		for _, w := range forbidden(doc.String()) {
			t.Errorf("package %s documentation: %s", dir, w)
		}
	}

	link := regexp.MustCompile(`docs/models\.md#([\p{L}\p{M}\p{N}_-]+)`)
	self := regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	links := 0
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var found [][]string
		found = append(found, link.FindAllStringSubmatch(string(b), -1)...)
		if filepath.Base(path) == "models.md" {
			found = append(found, self.FindAllStringSubmatch(string(b), -1)...)
		}
		for _, m := range found {
			links++
			if !anchors[m[1]] {
				t.Errorf("%s: link to docs/models.md#%s, which is no heading there", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if links == 0 {
		t.Error("no links to sections of docs/models.md found")
	}
}

// modelAnchors returns the anchors GitHub gives the headings of
// docs/models.md: lower case, spaces to hyphens, punctuation dropped, and
// -1, -2, … on repeats.
func modelAnchors(t *testing.T) map[string]bool {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "models.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var s strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				s.WriteByte('-')
			case r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc):
				s.WriteRune(r)
			}
		}
		a := s.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	if !anchors["stale-board-with-k-dispatchers"] {
		t.Fatalf("docs/models.md: no section on the stale board (anchors %v)", anchors)
	}
	return anchors
}
