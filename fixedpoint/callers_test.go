package fixedpoint_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// solvers are the calls whose result holds the last iterate when the solve
// did not converge: its Status must be read before the numbers are used.
// (The attractors, staleboard.Attractor and bestofd.Attractor, are not
// listed: an orbit that does not settle has averages over its last periods
// that a figure may draw as such.)
// Keyed by the package qualifier at the call ("" for a call inside the
// package: the names listed with it).
var solvers = map[string]map[string][]string{
	"fixedpoint": {"fixedpoint": {"Solve", "Classify"}, "": {"solve", "Classify"}},
	"staleboard": {"staleboard": {"FixedPoint"}, "": {"FixedPoint", "fixedPoint"}},
	"bestofd":    {"bestofd": {"FixedPoint"}, "": {"FixedPoint"}},
}

// solverCall reports whether call, in package pkg, is one of the solvers.
func solverCall(pkg string, call *ast.CallExpr) bool {
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		q, ok := fn.X.(*ast.Ident)
		if !ok {
			return false
		}
		for _, names := range solvers {
			for _, n := range names[q.Name] {
				if n == fn.Sel.Name {
					return true
				}
			}
		}
	case *ast.Ident:
		for _, n := range solvers[pkg][""] {
			if n == fn.Name {
				return true
			}
		}
	}
	return false
}

// Every caller of a fixed-point solve in the module (tests aside) reads
// the Status of the result it assigns (v.Status, v.Err, v.Outcome) or
// returns the result whole to its own caller, in the function that makes
// the call: a solve that stalled, stopped at its iteration limit or at
// the truncation limit hands back its last iterate, and a caller that
// uses it unread prints a confident wrong number (the stale board's best
// of two at T = 2,000 gave 208 for the map's 343). The check is
// syntactic, and fails on a caller that drops the result or never looks
// at its status; TestCallersAuditFindsOne shows it does.
func TestCallersReadStatus(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, bad := range unreadCalls(t, rel, src, &calls) {
			t.Errorf("%s: the solve's result %s is used without reading its Status", rel, bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The module has two dozen such calls; far fewer means the walk or
	// the matching broke, and the test would pass vacuously.
	if calls < 15 {
		t.Fatalf("found %d solver calls, want at least 15", calls)
	}
}

// unreadCalls parses one file and returns, for each solver call whose
// result is not read for its status in the enclosing function, a
// description "v at line n".
func unreadCalls(t *testing.T, name string, src []byte, calls *int) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		// The statements after each v, err := solver(...) in the block
		// that holds it (a read of another v of the same name elsewhere in
		// the function does not count); for v, err = solver(...), v was
		// declared outside: any read in the function counts.
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			var list []ast.Stmt
			switch b := n.(type) {
			case *ast.BlockStmt:
				list = b.List
			case *ast.CaseClause:
				list = b.Body
			case *ast.CommClause:
				list = b.Body
			default:
				return true
			}
			for i, st := range list {
				as, ok := st.(*ast.AssignStmt)
				if !ok || len(as.Rhs) != 1 {
					continue
				}
				call, ok := as.Rhs[0].(*ast.CallExpr)
				if !ok || !solverCall(f.Name.Name, call) {
					continue
				}
				*calls++
				v, ok := as.Lhs[0].(*ast.Ident)
				line := fset.Position(call.Pos()).Line
				if !ok || v.Name == "_" {
					bad = append(bad, "(dropped) at line "+itoa(line))
					continue
				}
				after := list[i+1:]
				if as.Tok == token.ASSIGN {
					after = fn.Body.List
				}
				if !statusRead(after, v.Name) {
					bad = append(bad, v.Name+" at line "+itoa(line))
				}
			}
			return true
		})
	}
	return bad
}

// statusRead reports whether the statements read v.Status, v.Err or
// v.Outcome, or return v itself.
func statusRead(stmts []ast.Stmt, v string) bool {
	found := false
	ast.Inspect(&ast.BlockStmt{List: stmts}, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == v {
				switch n.Sel.Name {
				case "Status", "Err", "Outcome":
					found = true
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if id, ok := r.(*ast.Ident); ok && id.Name == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// The audit flags a caller that uses the board of an unread solve, and one
// that reads the status of another result of the same name in another
// block (the form of validate's mechanism check before it read the
// status), and passes one that reads it.
func TestCallersAuditFindsOne(t *testing.T) {
	const unread = `package p
func f() error {
	fp, err := staleboard.FixedPoint(m, nil)
	if err != nil {
		return err
	}
	use(fp.Board)
	return nil
}
`
	const read = `package p
func f() error {
	for range 2 {
		fp, err := staleboard.FixedPoint(m, nil)
		if err != nil {
			return err
		}
		use(fp.Board)
	}
	fp, err := staleboard.FixedPoint(m, nil)
	if err != nil {
		return err
	}
	if fp.Status != outcome.Converged {
		return errNo
	}
	use(fp.Board)
	return nil
}
`
	var n int
	if bad := unreadCalls(t, "unread.go", []byte(unread), &n); len(bad) != 1 || n != 1 {
		t.Errorf("unread status: flagged %v of %d calls, want the one", bad, n)
	}
	n = 0
	if bad := unreadCalls(t, "read.go", []byte(read), &n); len(bad) != 1 || n != 2 {
		t.Errorf("one read, one not in another block: flagged %v of %d calls, want the loop's", bad, n)
	}
}
