package studies

import (
	"strings"
	"testing"
)

// --storage wins over the environment, which wins over the space's
// PostgreSQL storage; a bad value is named by where it came from.
func TestStorageURL(t *testing.T) {
	sp := studySpace(t, 3, "")
	sp.File = "unit.toml"
	pg := *sp
	pg.Study.Storage = "postgres://u@space/db"
	for _, c := range []struct {
		name, flag, env string
		sp              bool
		want, err       string
	}{
		{"nothing: a study.db", "", "", false, "", ""},
		{"the space's", "", "", true, "postgres://u@space/db", ""},
		{"the environment over the space", "", "postgres://u@env/db", true, "postgres://u@env/db", ""},
		{"the flag over both", "postgres://u@flag/db", "postgres://u@env/db", true, "postgres://u@flag/db", ""},
		{"a bad flag", "postgres://u@h:port/db", "", false, "", "--storage: "},
		{"a bad environment", "", "postgres://u@h:port/db", false, "", "$ST: "},
	} {
		s := sp
		if c.sp {
			s = &pg
		}
		got, err := StorageURL(c.flag, c.env, "$ST", s)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), c.err)) {
			t.Errorf("%s: %q, %v; want %q, %q", c.name, got, err, c.want, c.err)
		}
	}
	if got, err := StorageURL("", "", "$ST", nil); got != "" || err != nil {
		t.Errorf("no space: %q, %v", got, err)
	}
}
