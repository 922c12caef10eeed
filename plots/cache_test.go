package plots

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A data cache is used only for the inputs it was computed from; anything
// else is refused with a *CacheMismatchError, and a cache whose data fail
// their check is computed again (nil), never drawn.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exchange.json")
	good := &ExchangeData{Load: 0.9, Alpha: []float64{0.7, 0.3}, Nu: []float64{0, 1}, Blocking: []float64{0.4, 0.3}, MeanWait: []float64{0, 0}, NuStar: 3.6}
	check := func(d *ExchangeData) error { return d.check() }
	s := &Settings{Seed: 1}
	if err := writeCache(path, "exchange", s, good); err != nil {
		t.Fatal(err)
	}
	if d, err := readCache(path, "exchange", s, check); err != nil || d == nil || d.NuStar != 3.6 {
		t.Fatalf("round trip: %+v, %v", d, err)
	}
	for name, other := range map[string]*Settings{"seed": {Seed: 7}, "quick": {Seed: 1, Quick: true}} {
		t.Run(name+" differs", func(t *testing.T) {
			var me *CacheMismatchError
			if _, err := readCache(path, "exchange", other, check); !errors.As(err, &me) {
				t.Errorf("%v, want a mismatch", err)
			}
		})
	}
	var me *CacheMismatchError
	if _, err := readCache(path, "edge", s, check); !errors.As(err, &me) {
		t.Errorf("another figure's cache: %v", err)
	}
	for name, text := range map[string]string{"empty object": "{}", "not JSON": "{", "old format": `{"load": 0.9}`} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := readCache(path, "exchange", s, check); !errors.As(err, &me) {
				t.Errorf("%v, want a mismatch", err)
			}
		})
	}
	// Right envelope, data that cannot be drawn: computed again.
	for _, data := range []string{`{}`, `null`, `{"nu": [0, 1], "blocking": [0.4]}`} {
		t.Run("data "+data, func(t *testing.T) {
			text := `{"cache_version": 1, "figure": "exchange", "quick": false, "seed": 1, "data": ` + data + `}`
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if d, err := readCache(path, "exchange", s, check); d != nil || err != nil {
				t.Errorf("%+v, %v; want nil, nil (recompute)", d, err)
			}
		})
	}
	// Nothing half-written is left beside the file.
	if err := writeCache(path, "exchange", s, good); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the cache directory, want 1", len(entries))
	}
}
