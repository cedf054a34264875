package simprior_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// The study's prior keeps its predictions in the study's directory, so
// that a resume knows what was screened; a dry run reads them from a
// scratch copy and writes nothing there.
func TestPriorKeptWithTheStudyAndReadByADryRun(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	cards := sim.DefaultCards()
	dir := filepath.Join(t.TempDir(), "study")
	ctx := context.Background()

	if p, screens, done := simprior.ForDryRun(simprior.New(sp, cards), sp, cards, dir); p == nil || !screens {
		t.Errorf("a dry run before any run: prior %T, screens %v; want the prior's full screening", p, screens)
	} else {
		done()
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a dry run made the study's directory: %v", err)
	}

	p, done := simprior.InStudy(sp, cards, dir, zerolog.Nop())
	c := lab.Expert("glm52")
	if _, ok := p.(search.Screener).Screen(ctx, c); !ok {
		t.Fatal("the expert config screened infeasible")
	}
	done()
	path := filepath.Join(dir, simprior.File)
	kept, err := os.ReadFile(path)
	if err != nil || len(kept) == 0 {
		t.Fatalf("nothing kept in %s: %v", path, err)
	}
	again, done := simprior.InStudy(sp, cards, dir, zerolog.Nop())
	known, _ := again.(interface{ Known() []space.Config })
	if known == nil || len(known.Known()) != 1 {
		t.Errorf("a resume's prior does not know the config screened before")
	}
	done()

	dry, screens, done := simprior.ForDryRun(simprior.New(sp, cards), sp, cards, dir)
	if screens {
		t.Error("a dry run after a run screens again")
	}
	if _, ok := dry.(search.Screener); !ok {
		t.Error("the dry run's prior no longer screens")
	}
	if _, ok := dry.(interface{ Known() []space.Config }); ok {
		t.Error("the dry run's prior offers the kept configs as a start-up to resume")
	}
	other := space.Config{}
	for k, v := range c {
		other[k] = v
	}
	other["max_running"] = int64(7)
	dry.(search.Screener).Screen(ctx, other)
	done()
	if now, _ := os.ReadFile(path); !bytes.Equal(now, kept) {
		t.Error("the dry run wrote to the study's prior file")
	}
}
