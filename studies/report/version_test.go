package report

import (
	"runtime/debug"
	"testing"
)

// --version and reports carry the commit a checkout's build recorded, and
// say when the checkout had changes (issue 50 item 7).
func TestVersionOfCarriesTheCommit(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "5b47d74a1c2e9f0011223344556677889900aabb"}
	for _, tc := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"(devel)", nil, "(devel)"},
		{"(devel)", []debug.BuildSetting{rev}, "(devel) 5b47d74a1c2e"},
		{"(devel)", []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}, "(devel) 5b47d74a1c2e-dirty"},
		{"v1.2.3", []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}, "v1.2.3 5b47d74a1c2e"},
		{"(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "(devel) abc"},
		// A pseudo-version already names the commit: not twice.
		{"v0.0.0-20261207041828-5b47d74a1c2e+dirty", []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}, "v0.0.0-20261207041828-5b47d74a1c2e+dirty"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: tc.main}, Settings: tc.settings}
		if got := VersionOf(bi); got != tc.want {
			t.Errorf("VersionOf(%s, %v) = %q, want %q", tc.main, tc.settings, got, tc.want)
		}
	}
}
