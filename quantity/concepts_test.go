package quantity_test

import (
	"strings"
	"testing"

	"github.com/fluidlb/fluid/quantity"
)

// TestConceptsDeclared: each concept is a declared number, read by one
// flag, and its usage carries its unit.
func TestConceptsDeclared(t *testing.T) {
	flags := map[string]bool{}
	for _, c := range quantity.Concepts {
		t.Run(c.Flag, func(t *testing.T) {
			q, ok := quantity.Lookup(c.Quantity)
			if !ok || q.Domain == quantity.Text || q.Label == "" {
				t.Fatalf("concept %q: quantity %q is not a declared number with a label", c.Flag, c.Quantity)
			}
			if flags[c.Flag] {
				t.Errorf("flag --%s reads two concepts", c.Flag)
			}
			flags[c.Flag] = true
			if c.Definition == "" {
				t.Error("no definition")
			}
			u := c.Usage()
			if q.Unit != "" && !strings.Contains(u, q.Unit) {
				t.Errorf("usage %q does not state the unit %q", u, q.Unit)
			}
		})
	}
	if c, _ := quantity.ConceptOf("load"); c.Usage() != "load λ: arrival rate per server, in jobs per server per mean service time" {
		t.Errorf("load usage %q", c.Usage())
	}
}
