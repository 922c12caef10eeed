package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"unicode/utf8"
)

// State is how a task ended: a task's result in the store, not how a
// computation ended (that is the command's report's status).
type State string

const (
	// OK: the command succeeded; Result holds its JSON.
	OK State = "ok"
	// Failed: the command failed; Error holds its message.
	Failed State = "failed"
)

// Record is one line of a shard file: a finished task.
type Record struct {
	ID    string   `json:"id"`
	Point Point    `json:"point"`
	Args  []string `json:"args"`
	Seed  *uint64  `json:"seed,omitempty"`
	// State is ok or failed; Error the failure's message.
	State State  `json:"status"`
	Error string `json:"error,omitempty"`
	// Seconds is the task's wall time.
	Seconds float64 `json:"seconds"`
	// Result is the command's JSON output (also kept when it failed after
	// writing it, as fluid validate does when a check fails).
	Result json.RawMessage `json:"result,omitempty"`
}

// shardWriter appends records to a shard's file: one write per complete
// line, then fsync. It holds an exclusive lock on the file, so that two
// processes never write it.
type shardWriter struct {
	f    *os.File
	path string
}

// openShard opens (creating) the shard's file in dir, locks it and cuts a
// trailing partial line (a crash in the middle of a write).
func openShard(dir string, sh Shard) (*shardWriter, error) {
	path := filepath.Join(dir, sh.FileName())
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sweep: shard %v is already running into %s (%s is %w)", sh, dir, sh.FileName(), ErrLocked)
	}
	w := &shardWriter{f: f, path: path}
	if err := w.repair(); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// repair truncates the file after its last newline.
func (w *shardWriter) repair() error {
	st, err := w.f.Stat()
	if err != nil {
		return err
	}
	end := st.Size()
	buf := make([]byte, 4096)
	keep := int64(0)
	for pos := end; pos > 0; {
		n := int64(len(buf))
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := w.f.ReadAt(buf[:n], pos); err != nil && err != io.EOF {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep = pos + int64(i) + 1
			break
		}
	}
	if keep == end {
		return nil
	}
	if err := w.f.Truncate(keep); err != nil {
		return err
	}
	return w.f.Sync()
}

// write appends one record as one line, in one write; sync makes it
// durable (one sync covers every line written before it).
func (w *shardWriter) write(r *Record) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // Encode ends the line with '\n'
		return err
	}
	_, err := w.f.Write(b.Bytes())
	return err
}

func (w *shardWriter) sync() error { return w.f.Sync() }

func (w *shardWriter) close() error { return w.f.Close() }

// FileStat describes one shard file of a sweep directory.
type FileStat struct {
	Name  string
	Shard Shard
	// Lines are complete lines; OK and Failed count them by status.
	Lines, OK, Failed int
	// Partial is set when the file ends in an incomplete line (ignored).
	Partial bool
	// Unknown counts lines whose task is not in the sweep's grid.
	Unknown int
}

// Results are the finished tasks found in a sweep directory.
type Results struct {
	Sweep *Sweep
	// Records holds the outcome of each finished task, by task ID: a
	// success if there is one, otherwise the last failure read.
	Records map[string]*Record
	Files   []FileStat
}

// Load reads every shard file in dir (whatever the sharding that wrote
// it). A trailing line without a newline is ignored; a complete line that
// is not a record is an error.
func (s *Sweep) Load(dir string) (*Results, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if _, ok := shardOfFile(e.Name()); ok && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	ld := s.newLoader()
	for _, name := range names {
		sh, _ := shardOfFile(name)
		st := FileStat{Name: name, Shard: sh}
		if err := readRecords(filepath.Join(dir, name), &st, ld.add(&st)); err != nil {
			return nil, err
		}
		ld.res.Files = append(ld.res.Files, st)
	}
	return ld.res, nil
}

// ErrLocked is the error of a shard whose file another process holds.
var ErrLocked = errors.New("locked by another process")

// shortText cuts s to at most n bytes (at a rune boundary), marking the cut.
func shortText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// loader gathers the records of a sweep's shard files into Results.
type loader struct {
	res   *Results
	known map[string]bool // the sweep's task IDs
}

func (s *Sweep) newLoader() *loader {
	known := make(map[string]bool, len(s.Tasks))
	for _, t := range s.Tasks {
		known[t.ID] = true
	}
	return &loader{res: &Results{Sweep: s, Records: map[string]*Record{}}, known: known}
}

// add returns the function that takes in each record of the file st
// describes: a success wins over a failure, otherwise the last read.
func (l *loader) add(st *FileStat) func(*Record) {
	return func(r *Record) {
		if !l.known[r.ID] {
			st.Unknown++
			return
		}
		if old, ok := l.res.Records[r.ID]; ok && old.State == OK && r.State != OK {
			return
		}
		l.res.Records[r.ID] = r
	}
}

func readRecords(path string, st *FileStat, f func(*Record)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	return scanRecords(file, path, st, f)
}

// scanRecords reads the records of a shard file from r (path names it in
// errors), counting them into st and handing each to f.
func scanRecords(r io.Reader, path string, st *FileStat, f func(*Record)) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			st.Partial = len(b) > 0
			return nil
		}
		if err != nil {
			return err
		}
		r := new(Record)
		if err := json.Unmarshal(b, r); err != nil || r.ID == "" || (r.State != OK && r.State != Failed) {
			why := "want a JSON object with an id and a status of ok or failed"
			if err != nil {
				why = err.Error()
			}
			return fmt.Errorf("sweep: %s:%d: not a task record (%s; %d bytes)", path, line, shortText(why, 200), len(b))
		}
		st.Lines++
		if r.State == OK {
			st.OK++
		} else {
			st.Failed++
		}
		f(r)
	}
}

// Counts are the tasks of a sweep (or of a shard) by outcome.
type Counts struct {
	Tasks, OK, Failed, Remaining int
}

// Count counts the tasks in shard (Unsharded: all) by outcome.
func (r *Results) Count(shard Shard) Counts {
	var c Counts
	for _, t := range r.Sweep.Tasks {
		if !shard.Has(t.Index) {
			continue
		}
		c.Tasks++
		switch rec := r.Records[t.ID]; {
		case rec == nil:
			c.Remaining++
		case rec.State == OK:
			c.OK++
		default:
			c.Failed++
		}
	}
	return c
}
