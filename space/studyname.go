package space

import (
	"strings"
	"unicode"
)

// MaxNameBytes bounds study.name: it names a directory (at most 255
// bytes on every common file system, with room for the study's files
// beside it) and is typed as a command's argument.
const MaxNameBytes = 128

// studyName refuses a name that cannot be a study directory, or that
// `servetune show NAME` would read as something else: a slash or space
// (a path), a control character (a newline printed in every listing, a
// NUL that mkdir refuses after the load), a leading "-" (a flag), and a
// name longer than a directory's name may be (mkdir failed with exit 1).
func (d *decoder) studyName(name string) {
	switch {
	case name == "":
		d.fail("study.name", "is required")
	case strings.ContainsAny(name, `/\ `) || name == "." || name == "..":
		d.fail("study.name", "must not contain slashes or spaces, got %q", name)
	case strings.ContainsFunc(name, unicode.IsControl):
		d.fail("study.name", "must not contain control characters (a newline, a tab, NUL), got %q", name)
	case strings.HasPrefix(name, "-"):
		d.fail("study.name", "must not start with \"-\": `servetune show %s` would read it as a flag, got %q", name, name)
	case len(name) > MaxNameBytes:
		d.fail("study.name", "is %d bytes long, more than the %d a study directory's name may be", len(name), MaxNameBytes)
	}
}
