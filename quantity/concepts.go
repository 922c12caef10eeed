package quantity

import "strings"

// A Concept is an input that more than one command reads: one flag name,
// one symbol, one definition and one unit, the same in every command's
// help, the docs, the JSON and CSV (its Quantity's name) and the figures'
// labels (its Quantity's Axis). The command line builds each such flag's
// usage from Usage, and a test walks every command's flags against this
// table.
type Concept struct {
	// Quantity is the declared quantity the concept is: its JSON field
	// and CSV column, and the source of its label and unit.
	Quantity string
	// Flag is the flag's name on every command (without dashes), and
	// Short its one-letter synonym ("" none).
	Flag, Short string
	// Definition says what it is, in plain words, without its unit.
	Definition string
}

// Concepts are the inputs shared by the commands.
var Concepts = []Concept{
	{Quantity: "dispatchers", Flag: "dispatchers", Short: "k",
		Definition: "number of dispatchers, each sending its share of the arrivals (join-the-idle-queue: as many as the shares --alpha)"},
	{Quantity: "servers", Flag: "servers", Definition: "number of servers"},
	{Quantity: "load", Flag: "load", Definition: "arrival rate per server"},
	{Quantity: "alpha", Flag: "alpha", Definition: "fraction of the arrivals each dispatcher receives, one per dispatcher (positive, sum 1)"},
	{Quantity: "beta", Flag: "beta", Definition: "fraction of the idle servers' tokens sent to each dispatcher, one per dispatcher (non-negative, sum 1; default equal)"},
	{Quantity: "exchange", Flag: "exchange", Definition: "rate at which each token a dispatcher holds moves to a uniformly chosen dispatcher"},
	{Quantity: "period", Flag: "period", Definition: "time between two refreshes of the load board"},
	{Quantity: "horizon", Flag: "horizon", Definition: "refresh periods within which a finite system started balanced must tip"},
}

// ConceptOf returns the concept read by the flag named flag.
func ConceptOf(flag string) (Concept, bool) {
	for _, c := range Concepts {
		if c.Flag == flag {
			return c, true
		}
	}
	return Concept{}, false
}

// Usage is the concept as every flag usage states it: label, definition
// and unit ("load λ: arrival rate per server, in jobs per server per
// mean service time").
func (c Concept) Usage() string {
	q, _ := Lookup(c.Quantity)
	s := q.Label + ": " + c.Definition
	switch {
	case q.Unit == "":
	case strings.HasPrefix(q.Unit, "per "):
		s += ", " + q.Unit
	default:
		s += ", in " + q.Unit
	}
	return s
}
