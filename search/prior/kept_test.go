package prior

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// ReadKept gives the report the full predictions a study's prior kept,
// not its screenings, whatever build heads the file.
func TestReadKeptHasTheFullPredictions(t *testing.T) {
	sp := bigSpace()
	path := filepath.Join(t.TempDir(), "prior.jsonl")
	cp, closer, err := Cache(&countingScreener{}, sp, path, "build-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	predicted := space.Config{"a": int64(3), "b": int64(4)}
	screened := space.Config{"a": int64(5), "b": int64(6)}
	cp.Predict(ctx, predicted)
	cp.(search.Screener).Screen(ctx, screened)
	if err := closer(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"predict","config":{"a":`) // torn by a kill
	f.Close()
	kept, err := ReadKept(sp, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 {
		t.Fatalf("kept %v, want the one full prediction", kept)
	}
	k, ok := kept[search.ConfigKey(sp, predicted)]
	if !ok || !k.Feasible || len(k.Values) != 1 || k.Values[0] != truth(predicted) {
		t.Errorf("kept %+v for %v", k, predicted)
	}
	if kept, err := ReadKept(sp, filepath.Join(t.TempDir(), "none.jsonl")); err != nil || kept != nil {
		t.Errorf("no file: %v, %v; want no prediction and no error", kept, err)
	}
}
