package table

import (
	"strings"
	"testing"
)

// A byte-order mark (as spreadsheets write one) is not part of the first
// column's name.
func TestReadCSVByteOrderMark(t *testing.T) {
	tab, err := readCSV(strings.NewReader("\ufeffload,blocking\n0.5,0.1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Columns[0].Name; got != "load" {
		t.Errorf("first column %q, want load", got)
	}
	if len(tab.Rows) != 1 {
		t.Errorf("%d rows, want 1", len(tab.Rows))
	}
}
