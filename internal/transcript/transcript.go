// Package transcript reads the command examples of fluid's Markdown docs,
// so that a test can run every one and compare what it prints with what the
// docs show, and can rewrite the docs from what the commands print.
//
// A transcript is a fenced ```text block whose lines starting with "$ "
// are commands ("$ fluid ARGS" or "$ go run ./cmd/fluid ARGS"); the lines
// after a command, up to the next command or the end of the block, are its
// output (standard output, then standard error). A fenced ```sh block holds
// commands without output: each fluid command in it must succeed.
//
// A directive in an HTML comment on the line just before a block says how
// to run it:
//
//	<!-- transcript: skip REASON -->  not run (it needs a cluster, writes
//	                                   into the repository, …); the reason
//	                                   is required
//	<!-- transcript: long ARGS -->    run in full only in the long tier; the
//	                                   short tier runs fluid with ARGS (no
//	                                   "fluid" before them) instead and
//	                                   compares it with a golden file
//
// Wall times vary from run to run, so Mask replaces them (a number before
// " s" or "ms" after "in", events per second, and the columns headed
// seconds, ms or s) by X in both the docs and the output before they are
// compared.
package transcript

import (
	"fmt"
	"regexp"
	"strings"
)

// Command is one command of a block and the output the docs show for it.
type Command struct {
	// Line is the 1-based line of the command in the file.
	Line int
	// Text is the command as written after "$ ".
	Text string
	// Args are the fluid arguments (after "fluid" or "go run ./cmd/fluid"),
	// nil when the command is not a fluid command.
	Args []string
	// Output is the output shown, one string with a final newline (empty
	// for a command whose block shows none).
	Output string
	// first and last are the 0-based line indices of the output.
	first, last int
}

// Block is one fenced block holding commands.
type Block struct {
	// Line is the 1-based line of the opening fence.
	Line int
	// Kind is "text" (commands with their output) or "sh" (commands that
	// must succeed).
	Kind string
	// Skip is the reason a directive gives for not running the block.
	Skip string
	// Long says the block runs only in the long tier; Short are the
	// arguments the short tier runs instead.
	Long  bool
	Short []string
	// Commands of the block.
	Commands []Command
}

var directive = regexp.MustCompile(`^<!--\s*transcript:\s*(skip|long)\s*(.*?)\s*-->\s*$`)

// Parse reads the blocks of a Markdown document.
func Parse(doc string) ([]Block, error) {
	lines := strings.Split(doc, "\n")
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if fence != "```text" && fence != "```sh" {
			continue
		}
		b := Block{Line: i + 1, Kind: strings.TrimPrefix(fence, "```")}
		if i > 0 {
			if m := directive.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				switch m[1] {
				case "skip":
					if m[2] == "" {
						return nil, fmt.Errorf("line %d: a skip directive needs a reason", i)
					}
					b.Skip = m[2]
				case "long":
					b.Long = true
					args, err := split(m[2])
					if err != nil {
						return nil, fmt.Errorf("line %d: %v", i, err)
					}
					if len(args) == 0 {
						return nil, fmt.Errorf("line %d: a long directive needs the short variant's fluid arguments", i)
					}
					b.Short = args
				}
			}
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: unterminated block", i+1)
		}
		if err := b.readCommands(lines, i+1, end); err != nil {
			return nil, err
		}
		if len(b.Commands) > 0 {
			blocks = append(blocks, b)
		}
		i = end
	}
	return blocks, nil
}

// readCommands reads the commands of the block between lines from and to
// (exclusive), with their outputs.
func (b *Block) readCommands(lines []string, from, to int) error {
	var cur *Command
	for j := from; j < to; j++ {
		l := lines[j]
		isCmd := strings.HasPrefix(l, "$ ") || (b.Kind == "sh" && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#"))
		if b.Kind == "text" && !strings.HasPrefix(l, "$ ") && cur == nil {
			return nil // a text block that is not a transcript
		}
		if !isCmd {
			if cur != nil && b.Kind == "text" {
				cur.Output += l + "\n"
				cur.last = j
			}
			continue
		}
		text := strings.TrimPrefix(l, "$ ")
		// A shell line continued with a backslash.
		for strings.HasSuffix(text, "\\") && j+1 < to {
			j++
			text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[j])
		}
		if k := strings.Index(text, " #"); k >= 0 && b.Kind == "sh" {
			text = text[:k]
		}
		args, err := split(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("line %d: %v", j+1, err)
		}
		b.Commands = append(b.Commands, Command{Line: j + 1, Text: strings.TrimSpace(text), Args: fluidArgs(args), first: j + 1, last: j})
		cur = &b.Commands[len(b.Commands)-1]
	}
	return nil
}

// fluidArgs returns the arguments of a fluid command line, nil for any
// other command (or one with shell syntax).
func fluidArgs(words []string) []string {
	for _, w := range words {
		if strings.ContainsAny(w, "|<>;&`$") && !strings.HasPrefix(w, "'") {
			return nil
		}
	}
	switch {
	case len(words) >= 1 && (words[0] == "fluid" || words[0] == "./fluid"):
		return append([]string{}, words[1:]...)
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/fluid":
		return append([]string{}, words[3:]...)
	}
	return nil
}

// split splits a command line into words, with single and double quotes.
func split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// Replace returns the document with the outputs of its transcripts
// replaced: out maps a command's Line to its new output (with its final
// newline). Commands not in out keep theirs.
func Replace(doc string, blocks []Block, out map[int]string) string {
	lines := strings.Split(doc, "\n")
	type edit struct {
		first, last int
		text        string
	}
	var edits []edit
	for _, b := range blocks {
		for _, c := range b.Commands {
			if o, ok := out[c.Line]; ok && b.Kind == "text" {
				edits = append(edits, edit{c.first, c.last, strings.TrimSuffix(o, "\n")})
			}
		}
	}
	var b strings.Builder
	next := 0
	for _, e := range edits {
		for ; next < e.first; next++ {
			b.WriteString(lines[next] + "\n")
		}
		if e.text != "" {
			b.WriteString(e.text + "\n")
		}
		next = e.last + 1
	}
	for ; next < len(lines); next++ {
		b.WriteString(lines[next])
		if next < len(lines)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
