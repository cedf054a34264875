package space

import "testing"

func TestParsePass(t *testing.T) {
	for in, want := range map[string]Pass{
		"--model": {Flag: "--model"}, "-m": {Flag: "-m"}, "positional": {Positional: true},
		"env:MODEL_PATH": {Env: "MODEL_PATH"}, "none": {},
	} {
		got, err := ParsePass(in)
		if err != nil || got != want {
			t.Errorf("ParsePass(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "model", "--", "--a b", "--a=b", "env:", "env:1X", "env:A-B", "positional "} {
		if _, err := ParsePass(bad); err == nil {
			t.Errorf("ParsePass(%q) accepted", bad)
		}
	}
}

// FuzzParsePass: what ParsePass accepts prints back as itself.
func FuzzParsePass(f *testing.F) {
	for _, s := range []string{"--model", "-m", "positional", "env:X", "none", "env:", "--a=b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePass(s)
		if err != nil {
			return
		}
		if p.String() != s {
			t.Fatalf("ParsePass(%q).String() = %q", s, p.String())
		}
		if q, err := ParsePass(p.String()); err != nil || q != p {
			t.Fatalf("round trip of %q: %+v %v", s, q, err)
		}
	})
}
