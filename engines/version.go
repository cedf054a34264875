package engines

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is an engine release, compared on its numeric parts. Latest
// means "newest known": a target that does not declare a version gets
// today's spellings. The zero Version is 0.0.0, older than any release:
// the version tables' "always".
type Version struct {
	parts  [3]int
	latest bool
}

// Latest is the newest known version of every engine.
func Latest() Version { return Version{latest: true} }

// ParseVersion reads "0.11.0", "v0.5.3.post3", "1.2.0rc1" or "0.22.1.dev3";
// pre-release and post-release suffixes are ignored because flags change
// between minor releases, not between release candidates. "" and "latest"
// mean Latest.
func ParseVersion(s string) (Version, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if s == "" || s == "latest" {
		return Latest(), nil
	}
	var v Version
	for i, p := range strings.SplitN(s, ".", 4) {
		if i == 3 {
			break
		}
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 {
			if i == 0 {
				return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH", s)
			}
			break
		}
		n, _ := strconv.Atoi(p[:end])
		v.parts[i] = n
		if end < len(p) {
			break
		}
	}
	return v, nil
}

// mustVersion is ParseVersion for constants in tables.
func mustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// AtLeast reports whether v is o or newer.
func (v Version) AtLeast(o Version) bool {
	if v.latest {
		return true
	}
	if o.latest {
		return false
	}
	for i := range v.parts {
		if v.parts[i] != o.parts[i] {
			return v.parts[i] > o.parts[i]
		}
	}
	return true
}

func (v Version) String() string {
	if v.latest {
		return "latest"
	}
	return fmt.Sprintf("%d.%d.%d", v.parts[0], v.parts[1], v.parts[2])
}
