package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium finds Debian's chromium; scripts/test installs it. In CI a
// missing browser fails the test rather than skipping it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (scripts/test installs it: apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed; scripts/test installs it")
	return ""
}

// probe is added to a copy of the page under test only: after load it
// writes every figure's rendered size, the page's errors and any resource
// it fetched into the DOM, which --dump-dom then prints.
const probe = `<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || (e.target && e.target.outerHTML))), true);
window.addEventListener('load', () => {
  const figs = [...document.querySelectorAll('figure')].map(f => {
    const r = f.querySelector('svg').getBoundingClientRect();
    return {id: f.id, w: r.width, h: r.height, marks: f.querySelectorAll('svg path, svg text').length};
  });
  const res = performance.getEntriesByType('resource').map(r => r.name);
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({figures: figs, errors: window.__errors, resources: res});
  document.body.appendChild(pre);
});
</script>`

type probeResult struct {
	Figures []struct {
		ID    string
		W, H  float64
		Marks int
	}
	Errors, Resources []string
}

func TestHTMLRendersInChromium(t *testing.T) {
	bin := chromium(t)
	f := fixtureFull(t, 40)
	var page bytes.Buffer
	if err := f.HTML(&page); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	probed := strings.Replace(page.String(), "<head>", "<head>"+probe, 1)
	if err := os.WriteFile(file, []byte(probed), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0", "--window-size=1280,4000", "--dump-dom", "file://"+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`<pre id="probe">(.*?)</pre>`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("the probe did not run; dumped DOM ends:\n%s", tail(stdout.String()))
	}
	var got probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatal(err)
	}
	checkProbe(t, got, len(f.Plots()))
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			t.Errorf("console message: %s", l)
		}
	}
}

func checkProbe(t *testing.T, got probeResult, plots int) {
	t.Helper()
	if len(got.Figures) != plots {
		t.Errorf("%d figures rendered, want %d", len(got.Figures), plots)
	}
	for _, fig := range got.Figures {
		if fig.W < 100 || fig.H < 100 || fig.Marks < 10 {
			t.Errorf("figure %s rendered %.0f×%.0f px with %d marks", fig.ID, fig.W, fig.H, fig.Marks)
		}
	}
	if len(got.Errors) > 0 {
		t.Errorf("page errors: %q", got.Errors)
	}
	if len(got.Resources) > 0 {
		t.Errorf("the page fetched %q: it must be self-contained", got.Resources)
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
