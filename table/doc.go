// Package table is fluid's tidy table: typed columns, one row per entry,
// read from and written to CSV, JSON Lines and Parquet. A sweep's merged
// results are one (package sweep), so is a command's --csv output (Of
// flattens a JSON report: fluid edge --csv has a row per edge), and fluid
// plot draws one.
//
// Of and Flatten turn a JSON report into rows: nested objects flattened
// with dots (sojourn.mean), arrays and the header fields left out, one row
// per element of the report's array of rows. Builder types the columns:
// Int64 when every value is an integer, Float64 when they are numbers,
// Boolean for true and false, String otherwise. Write writes CSV (a header
// row, numbers printed canonically by lists.FormatFloat, empty cells for
// missing values), JSON Lines (one object per row, null for missing
// values) or Parquet (one optional column per table column: DOUBLE, INT64,
// BOOLEAN or STRING); Read reads all three back.
//
// The reports the tables come from are the documents of package report;
// the quantities they hold are written out in docs/models.md.
package table
