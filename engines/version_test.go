package engines

import "testing"

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		s    string
		want string
	}{{"0.11.0", "0.11.0"}, {"v0.5.3.post3", "0.5.3"}, {"1.2.0rc1", "1.2.0"}, {"0.22.1.dev3+g1234", "0.22.1"}, {"", "latest"}, {"0.13", "0.13.0"}} {
		v, err := ParseVersion(c.s)
		if err != nil || v.String() != c.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %s", c.s, v, err, c.want)
		}
	}
	if !mustVersion("0.11.1").AtLeast(vllm0111) || mustVersion("0.11.0").AtLeast(vllm0111) || !Latest().AtLeast(vllm013) || mustVersion("9.0").AtLeast(Latest()) {
		t.Error("AtLeast ordering wrong")
	}
}
