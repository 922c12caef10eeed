package sweep

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fluidlb/fluid/lists"
)

// GridFile is a grid read from YAML (ParseGridFile).
type GridFile struct {
	// Command, if the file names one, is the command it is for.
	Command string
	Points  []Point
	Dims    []Dim
}

// ParseGridFile reads a grid file: YAML with up to three keys,
//
//	command: jiq                  # optional: the command it is for
//	grid:                         # a product: flag → list
//	  load: 0.5..0.95:0.05        #   a list in the flags' grammar,
//	  scenario: [blocking, queueing]   # or a YAML list of values/ranges
//	points:                       # explicit points, each crossed with grid
//	  - {alpha: [0.7, 0.3], beta: [0.7, 0.3]}
//	  - {alpha: "0.6,0.4", beta: "0.6,0.4"}
//
// Flag names are without dashes. A vector flag (alpha) takes a YAML list
// of numbers or a comma list as one value; under grid, a list of those (or
// a string separating them with ';'). Every point must set the same flags.
// kind tells each flag's kind (false: the command has no such flag).
func ParseGridFile(data []byte, kind func(name string) (lists.Kind, bool)) (*GridFile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("grid file: %v", err)
	}
	gf := &GridFile{}
	if len(doc.Content) == 0 {
		return gf, nil // an empty file: one point
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, lineErr(root, "want a mapping with command, grid and points")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "command":
			if v.Kind != yaml.ScalarNode {
				return nil, lineErr(v, "command: want a command name")
			}
			gf.Command = v.Value
		case "grid":
			if v.Kind != yaml.MappingNode {
				return nil, lineErr(v, "grid: want a mapping of flag names to lists")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				name, val := v.Content[j].Value, v.Content[j+1]
				kd, ok := kind(name)
				if !ok {
					return nil, lineErr(v.Content[j], "unknown flag --%s", name)
				}
				text, err := listText(val, kd)
				if err != nil {
					return nil, err
				}
				vals, err := lists.Parse(name, kd, text)
				if err != nil {
					return nil, lineErr(val, "%v", err)
				}
				gf.Dims = append(gf.Dims, Dim{Name: name, Kind: kd, Values: vals})
			}
		case "points":
			if v.Kind != yaml.SequenceNode {
				return nil, lineErr(v, "points: want a list of mappings")
			}
			if len(v.Content) > MaxTasks {
				return nil, lineErr(v, "points: more than %d points", MaxTasks)
			}
			for _, pn := range v.Content {
				p, err := pointOf(pn, kind, gf.Points)
				if err != nil {
					return nil, err
				}
				gf.Points = append(gf.Points, p)
			}
		default:
			return nil, lineErr(k, "unknown key %q (want command, grid or points)", k.Value)
		}
	}
	return gf, nil
}

// pointOf reads one explicit point, in the order of the first point.
func pointOf(n *yaml.Node, kind func(string) (lists.Kind, bool), before []Point) (Point, error) {
	if n.Kind != yaml.MappingNode {
		return nil, lineErr(n, "a point must be a mapping of flag names to values")
	}
	vals := map[string]lists.Value{}
	var order []string
	for j := 0; j+1 < len(n.Content); j += 2 {
		name, vn := n.Content[j].Value, n.Content[j+1]
		kd, ok := kind(name)
		if !ok {
			return nil, lineErr(n.Content[j], "unknown flag --%s", name)
		}
		if _, dup := vals[name]; dup {
			return nil, lineErr(n.Content[j], "--%s is set twice", name)
		}
		var text string
		switch {
		case vn.Kind == yaml.ScalarNode:
			text = vn.Value
		case vn.Kind == yaml.SequenceNode && kd.Vector():
			t, err := joinScalars(vn, ",")
			if err != nil {
				return nil, err
			}
			text = t
		default:
			return nil, lineErr(vn, "--%s: a point takes one value", name)
		}
		v, err := lists.ParseValue(kd, text)
		if err != nil {
			return nil, lineErr(vn, "invalid --%s %q: %v", name, text, err)
		}
		vals[name] = v
		order = append(order, name)
	}
	if len(before) > 0 {
		first := before[0]
		if len(first) != len(order) {
			return nil, lineErr(n, "every point must set the same flags (the first sets %d, this one %d)", len(first), len(order))
		}
		order = order[:0]
		for _, q := range first {
			if _, ok := vals[q.Name]; !ok {
				return nil, lineErr(n, "every point must set the same flags: this one lacks --%s", q.Name)
			}
			order = append(order, q.Name)
		}
	}
	p := make(Point, 0, len(order))
	for _, name := range order {
		p = append(p, Param{name, vals[name]})
	}
	return p, nil
}

// listText turns a grid entry into the text a flag would be given.
func listText(n *yaml.Node, kd lists.Kind) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return "", lineErr(n, "an empty list")
		}
		if !kd.Vector() {
			return joinScalars(n, ",")
		}
		var parts []string
		for _, c := range n.Content {
			switch c.Kind {
			case yaml.ScalarNode:
				parts = append(parts, c.Value)
			case yaml.SequenceNode:
				s, err := joinScalars(c, ",")
				if err != nil {
					return "", err
				}
				parts = append(parts, s)
			default:
				return "", lineErr(c, "want a value or a list of numbers")
			}
		}
		return strings.Join(parts, ";"), nil
	}
	return "", lineErr(n, "want a value or a list")
}

func joinScalars(n *yaml.Node, sep string) (string, error) {
	var parts []string
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return "", lineErr(c, "want a plain value")
		}
		parts = append(parts, c.Value)
	}
	return strings.Join(parts, sep), nil
}

func lineErr(n *yaml.Node, format string, a ...any) error {
	return errors.New(fmt.Sprintf("grid file line %d: ", n.Line) + fmt.Sprintf(format, a...))
}
