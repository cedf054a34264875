package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/servetune/servetune/space"
)

// TestRecordedEngines: the declared engines a run records are what show
// and best read back; a run without any records nothing, and a broken
// record names the study and the key.
func TestRecordedEngines(t *testing.T) {
	ctx := context.Background()
	decl := map[string]space.EngineDecl{"llama": {Command: []string{"llama-server"}, DefaultPort: 8080}}
	cases := []struct {
		name    string
		declare map[string]space.EngineDecl
		raw     string // written over the record, when set
		want    map[string]space.EngineDecl
		wantErr bool
	}{
		{"none declared", nil, "", nil, false},
		{"declared", decl, "", decl, false},
		{"broken record", decl, "{not json", nil, true},
	}
	for _, c := range cases {
		st, _ := openStore(t)
		if err := RecordEngines(ctx, st, &space.Space{Target: space.Target{Declared: c.declare}}); err != nil {
			t.Fatal(err)
		}
		if c.raw != "" {
			if err := st.SetMeta(ctx, metaEngines, c.raw); err != nil {
				t.Fatal(err)
			}
		}
		got, err := StoredEngines(ctx, st)
		if (err != nil) != c.wantErr || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v; want %v (error %v)", c.name, got, err, c.want, c.wantErr)
		}
	}
}
