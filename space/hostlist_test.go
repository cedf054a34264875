package space

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpandHostlist(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"host-a", []string{"host-a"}, ""},
		{"host-a,host-b", []string{"host-a", "host-b"}, ""},
		{"gpu[01-02]", []string{"gpu01", "gpu02"}, ""},
		{"gpu[01-03,07],login1", []string{"gpu01", "gpu02", "gpu03", "gpu07", "login1"}, ""},
		{"n[8-10]", []string{"n8", "n9", "n10"}, ""},
		{"n[098-101]", []string{"n098", "n099", "n100", "n101"}, ""},
		{"r[1-2]n[1-2].ib", []string{"r1n1.ib", "r1n2.ib", "r2n1.ib", "r2n2.ib"}, ""},
		{"127.0.0.1,127.0.0.1", []string{"127.0.0.1", "127.0.0.1"}, ""},
		{"gpu[01-02", nil, "'[' without ']'"},
		{"gpu01-02]", nil, "']' without '['"},
		{"gpu[0[1]]", nil, "nested '['"},
		{"gpu[]", nil, `"" is not a host number`},
		{"gpu[3-1]", nil, "runs backwards"},
		{"gpu[a-b]", nil, `"a" is not a host number`},
		{"a,,b", nil, "empty host name"},
		{"", nil, "empty host name"},
		{"gpu 01", nil, "white space"},
		{"n[0-99999999]", nil, "more than 4096 hosts"},
		{"a[0-99]b[0-99]", nil, "more than 4096 hosts"},
	} {
		got, err := ExpandHostlist(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ExpandHostlist(%q) = %v, %v; want error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ExpandHostlist(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// FuzzExpandHostlist: any input gives hosts or an error, never a panic
// or more than MaxHosts names; every name is non-empty, has no brackets,
// commas or white space, and a list without brackets expands to itself.
func FuzzExpandHostlist(f *testing.F) {
	for _, s := range []string{"gpu[01-02]", "a,b", "r[1-2]n[01-03,7]", "n[0-99999999]", "x[", "[1-2]", "a[1-2],b[3]c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := ExpandHostlist(s)
		if err != nil {
			return
		}
		if len(hosts) == 0 || len(hosts) > MaxHosts {
			t.Fatalf("%q: %d hosts", s, len(hosts))
		}
		for _, h := range hosts {
			if h == "" || strings.ContainsAny(h, "[], \t\r\n") {
				t.Fatalf("%q expanded to bad name %q", s, h)
			}
		}
		if !strings.ContainsAny(s, "[]") && strings.Join(hosts, ",") != s {
			t.Fatalf("%q expanded to %q", s, hosts)
		}
	})
}
