package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/lab"
	"github.com/servetune/servetune/studies/pgtest"
)

// cardsSpace is a simulated study of a model no built-in card knows; its
// card comes from [target.sim] cards.
const cardsSpace = `
[study]
name = "cards"
n_trials = 3
[target]
model = "acme/Dense-8B"
gpu = "H100"
[target.sim]
cards = "cards/acme.toml"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[profiles]
run = ["short"]
[profiles.custom.short]
dataset = "random"
input_len = 512
output_len = 64
num_prompts = 32
max_concurrency = 16
request_rate = inf
[params.engine]
values = ["vllm"]
[params.max_running]
values = [16, 64]
`

const acmeCard = `# a hand-written card
[[model]]
name = "acme/Dense-8B"
weight_dtype = "bf16"
total_params_b = 8.0
active_params_b = 8.0
attn_params_b = 1.3
layers = 32
hidden = 4096
vocab = 128256
attention = "GQA"
heads = 32
kv_heads = 8
head_dim = 128
max_context = 32768
`

func writeCardsStudy(t *testing.T, card string) (dir, spacePath string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cards"), 0o755); err != nil {
		t.Fatal(err)
	}
	spacePath = filepath.Join(dir, "space.toml")
	if err := os.WriteFile(spacePath, []byte(cardsSpace), 0o644); err != nil {
		t.Fatal(err)
	}
	writeCard(t, dir, card)
	return dir, spacePath
}

func writeCard(t *testing.T, dir, card string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "cards", "acme.toml"), []byte(card), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A study of a model with no built-in card runs on [target.sim] cards
// (relative to the space file, run from another directory), and a resume
// whose card changed is refused as drift while a comment-only edit is not.
func TestStudyOnCardsFileAndDrift(t *testing.T) {
	dir, spacePath := writeCardsStudy(t, acmeCard)
	elsewhere := t.TempDir()
	code, out, errText := runCLI(t, elsewhere, "run", "--dir", filepath.Join(dir, "studies"), spacePath)
	if code != 0 || !strings.Contains(out, "Study stored in") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errText)
	}
	writeCard(t, dir, "# reformatted\n"+acmeCard)
	code, _, errText = runCLI(t, elsewhere, "run", "--dir", filepath.Join(dir, "studies"), "--n-trials", "4", spacePath)
	if code != 0 {
		t.Fatalf("comment-only card edit refused: exit %d\n%s", code, errText)
	}
	writeCard(t, dir, strings.Replace(acmeCard, "layers = 32", "layers = 36", 1))
	code, _, errText = runCLI(t, elsewhere, "run", "--dir", filepath.Join(dir, "studies"), "--n-trials", "5", spacePath)
	if code != 2 || !strings.Contains(errText, "simulator cards differ") {
		t.Fatalf("changed card: exit %d, want 2 naming the cards\n%s", code, errText)
	}
	// calibrate fits on the cards the study stored, not the file as it is
	// now nor the built-in ones (which do not know the model).
	os.Remove(filepath.Join(dir, "cards", "acme.toml"))
	fitted := filepath.Join(elsewhere, "fitted.toml")
	code, out, errText = runCLI(t, elsewhere, "calibrate", "--dir", filepath.Join(dir, "studies"), "--out", fitted, "cards")
	if code != 0 {
		t.Fatalf("calibrate on the stored cards: exit %d\n%s\n%s", code, out, errText)
	}
	b, err := os.ReadFile(fitted)
	if err != nil || !strings.Contains(string(b), `name = "acme/Dense-8B"`) || !strings.Contains(string(b), "layers = 32") {
		t.Errorf("fitted cards: %v\n%s", err, b)
	}
}

// Without the cards the model is unknown and the space is refused, naming
// the remedy; --cards supplies them.
func TestCardsFlag(t *testing.T) {
	dir, spacePath := writeCardsStudy(t, acmeCard)
	src := strings.Replace(cardsSpace, "[target.sim]\ncards = \"cards/acme.toml\"\n", "", 1)
	if err := os.WriteFile(spacePath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, dir, "run", spacePath)
	if code != 2 || !strings.Contains(errText, "target.model") || !strings.Contains(errText, "servetune card") {
		t.Fatalf("no cards: exit %d\n%s", code, errText)
	}
	code, out, errText := runCLI(t, dir, "run", "--cards", filepath.Join(dir, "cards", "acme.toml"), spacePath)
	if code != 0 || !strings.Contains(out, "Study stored in") {
		t.Fatalf("--cards: exit %d\n%s\n%s", code, out, errText)
	}
}

// A bad cards file is bad input: exit 2, file:line:key, nothing written.
func TestBadCardsFile(t *testing.T) {
	cases := []struct{ card, want string }{
		{strings.Replace(acmeCard, "layers = 32", "layerz = 32", 1), "acme.toml:8: model[0].layerz: unknown key; did you mean \"layers\"? (known: "},
		{strings.Replace(acmeCard, "hidden = 4096", "hidden = 0", 1), "acme.toml:9: model[0].hidden: is required and must be positive"},
		{strings.Replace(acmeCard, "layers = 32", `layers = "32"`, 1), "acme.toml:8: model[0].layers: incompatible types"},
		{acmeCard + "max_model_len = 65536\n", "acme.toml:16: model[0].max_model_len: must be between 0 and max_context (32768)"},
		{strings.Replace(acmeCard, `name = "acme/Dense-8B"`, `name = "acme`, 1), "acme.toml:3: "},
	}
	for _, c := range cases {
		dir, spacePath := writeCardsStudy(t, c.card)
		code, out, errText := runCLI(t, dir, "run", spacePath)
		if code != 2 || !strings.Contains(errText, c.want) || !strings.Contains(errText, "target.sim.cards") || out != "" {
			t.Errorf("exit %d, want 2 and %q in:\n%s", code, c.want, errText)
		}
		if _, err := os.Stat(filepath.Join(dir, "studies")); err == nil {
			t.Errorf("a study was written for a bad card")
		}
	}
	dir, spacePath := writeCardsStudy(t, acmeCard)
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[[gpu]]\nname = \"X\"\nmem_gib = 80\n"), 0o644)
	code, _, errText := runCLI(t, dir, "run", "--cards", bad, spacePath)
	if code != 2 || !strings.Contains(errText, "--cards: "+bad+":1: gpu[0].hbm_tbs: is required") {
		t.Errorf("--cards bad: exit %d\n%s", code, errText)
	}
}

// The prior simulates the study's cards: a model only they know gets a
// prior, none without them.
func TestPriorUsesTheCards(t *testing.T) {
	_, spacePath := writeCardsStudy(t, acmeCard)
	sp, err := loadSpace(context.Background(), spacePath)
	if err != nil {
		t.Fatal(err)
	}
	cards, err := studies.TargetCards(sp.Target)
	if err != nil {
		t.Fatal(err)
	}
	if p, done := simprior.InStudy(sp, cards, t.TempDir(), zerolog.Nop()); p == nil {
		t.Error("no prior on the study's cards")
	} else {
		done()
	}
	p, done := simprior.InStudy(sp, nil, t.TempDir(), zerolog.Nop())
	done()
	if p != nil {
		t.Error("a prior without the cards that know the model")
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[[model]]\nname = 1\n"), 0o644)
	if _, _, err := lab.LoadCards(bad, ""); err == nil || !strings.Contains(err.Error(), "--cards: "+bad+":2") {
		t.Errorf("lab --cards bad file: %v", err)
	}
}

// The context and offload knobs run in a simulated study; a context the
// card's model does not have is refused at load (every trial with it
// would fail as vLLM does), naming the knob, with nothing written.
func TestContextAndOffloadKnobsInAStudy(t *testing.T) {
	dir, spacePath := writeCardsStudy(t, acmeCard)
	space := func(lens string) string {
		src := strings.Replace(cardsSpace, "n_trials = 3", "n_trials = 4\nsampler = \"grid\"", 1) + `
[params.max_model_len]
values = ` + lens + `
[params.kv_offload_gb]
values = [0, 32]
`
		return strings.Replace(src, "[params.max_running]\nvalues = [16, 64]\n", "", 1)
	}
	if err := os.WriteFile(spacePath, []byte(space("[8192, 65536]")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, dir, "run", spacePath)
	if code != 2 || !strings.Contains(errText, "params.max_model_len.values: 65536 is above the context of acme/Dense-8B, 32768 tokens") {
		t.Fatalf("a context the model does not have: exit %d, want 2\n%s", code, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "studies")); err == nil {
		t.Error("a refused space wrote its study")
	}
	if err := os.WriteFile(spacePath, []byte(space("[8192, 16384]")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, dir, "run", spacePath)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errText)
	}
	code, out, _ = runCLI(t, dir, "show", "cards")
	if code != 0 || strings.Count(out, "complete") < 4 {
		t.Errorf("show:\n%s", out)
	}
}

// The cards are stored with the study: a resume whose space no longer
// names them (and whose file is gone) runs on the stored ones, even for a
// model only they know; a new study without them is still refused.
func TestResumeOnStoredCards(t *testing.T) {
	dir, spacePath := writeCardsStudy(t, acmeCard)
	if code, _, errText := runCLI(t, dir, "run", spacePath); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errText)
	}
	os.Remove(filepath.Join(dir, "cards", "acme.toml"))
	src := strings.Replace(cardsSpace, "[target.sim]\ncards = \"cards/acme.toml\"\n", "", 1)
	if err := os.WriteFile(spacePath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, dir, "run", "--n-trials", "5", spacePath)
	if code != 0 || !strings.Contains(errText, "simulating on the cards stored with the study") || !strings.Contains(out, "Study stored in") {
		t.Fatalf("resume on the stored cards: exit %d\n%s\n%s", code, out, errText)
	}
	other := strings.Replace(src, `name = "cards"`, `name = "fresh"`, 1)
	if err := os.WriteFile(spacePath, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errText := runCLI(t, dir, "run", spacePath); code != 2 || !strings.Contains(errText, "target.model") {
		t.Errorf("a new study without cards: exit %d, want 2 naming target.model\n%s", code, errText)
	}
}

// The same for a study in PostgreSQL shared storage: a worker (and a run
// --storage) whose space no longer names the cards joins the study on
// those stored with it; a new study without them is refused, exit 2,
// and nothing is created in the database.
func TestWorkerResumesOnStoredCardsInPostgres(t *testing.T) {
	url := pgtest.Start(t)
	t.Setenv(storageEnv, "")
	dir, spacePath := writeCardsStudy(t, acmeCard)
	withCards := strings.Replace(cardsSpace, "values = [16, 64]", "values = [8, 16, 24, 32, 48, 64, 96]", 1)
	if err := os.WriteFile(spacePath, []byte(withCards), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errText := runCLI(t, dir, "worker", "--storage", url, spacePath); code != 0 {
		t.Fatalf("first worker: exit %d\n%s", code, errText)
	}
	os.Remove(filepath.Join(dir, "cards", "acme.toml"))
	src := strings.Replace(withCards, "[target.sim]\ncards = \"cards/acme.toml\"\n", "", 1)
	if err := os.WriteFile(spacePath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, dir, "worker", "--storage", url, "--n-trials", "5", spacePath)
	if code != 0 || !strings.Contains(errText, "simulating on the cards stored with the study") {
		t.Fatalf("worker on the stored cards: exit %d\n%s\n%s", code, out, errText)
	}
	if code, out, errText = runCLI(t, dir, "run", "--storage", url, "--n-trials", "6", spacePath); code != 0 {
		t.Fatalf("run --storage on the stored cards: exit %d\n%s\n%s", code, out, errText)
	}
	code, out, errText = runCLI(t, dir, "show", "--storage", url, "--json", "cards")
	var trials []struct{ State string }
	if err := json.Unmarshal([]byte(out), &trials); code != 0 || err != nil {
		t.Fatalf("show --storage: exit %d %v %s", code, err, errText)
	}
	for _, tr := range trials {
		if tr.State != "complete" && tr.State != "pruned" {
			t.Errorf("a trial on the stored cards ended %q", tr.State)
		}
	}
	if len(trials) != 6 {
		t.Errorf("%d trials, want the 6 of three runs on the same cards", len(trials))
	}
	other := strings.Replace(src, `name = "cards"`, `name = "fresh"`, 1)
	if err := os.WriteFile(spacePath, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errText := runCLI(t, dir, "worker", "--storage", url, spacePath); code != 2 || !strings.Contains(errText, "target.model") {
		t.Errorf("a new study without cards: exit %d, want 2 naming target.model\n%s", code, errText)
	}
	if _, out, _ := runCLI(t, dir, "studies", "--storage", url); strings.Contains(out, "fresh") {
		t.Errorf("the refused study was created:\n%s", out)
	}
}

// [study] storage = "postgres://…" (no flag, no environment) resumes on
// the stored cards too: the study is read where the space puts it.
func TestStudyStorageKeyResumesOnStoredCards(t *testing.T) {
	url := pgtest.Start(t)
	t.Setenv(storageEnv, "")
	dir, spacePath := writeCardsStudy(t, acmeCard)
	shared := strings.Replace(cardsSpace, "n_trials = 3\n", "n_trials = 1\nstorage = \""+url+"\"\n", 1)
	if err := os.WriteFile(spacePath, []byte(shared), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errText := runCLI(t, dir, "run", spacePath); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errText)
	}
	os.Remove(filepath.Join(dir, "cards", "acme.toml"))
	src := strings.Replace(shared, "[target.sim]\ncards = \"cards/acme.toml\"\n", "", 1)
	if err := os.WriteFile(spacePath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI(t, dir, "worker", "--n-trials", "2", spacePath)
	if code != 0 || !strings.Contains(errText, "simulating on the cards stored with the study") {
		t.Fatalf("worker on the stored cards: exit %d\n%s\n%s", code, out, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "studies", "cards", "study.db")); err == nil {
		t.Error("a local study.db was written; the study is in PostgreSQL")
	}
}

// A worker whose space needs the stored cards but whose store stays
// unreachable past --store-outage says both: the space's problem and
// that the study's cards could not be read (a storage failure, exit 1),
// without the password.
func TestWorkerOnStoredCardsWhenTheStoreIsDown(t *testing.T) {
	t.Setenv(storageEnv, "")
	dir, spacePath := writeCardsStudy(t, acmeCard)
	src := strings.Replace(cardsSpace, "[target.sim]\ncards = \"cards/acme.toml\"\n", "", 1)
	if err := os.WriteFile(spacePath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	down := "postgres://u:Cards-Secret-77@127.0.0.1:1/db?connect_timeout=1"
	code, out, errText := runCLI(t, dir, "worker", "--storage", down, "--store-outage", "1ns", spacePath)
	if code != 1 || !strings.Contains(errText, "target.model") || !strings.Contains(errText, `cards stored with study "cards"`) || !strings.Contains(errText, "stayed unreachable") {
		t.Errorf("store down: exit %d, want 1 naming target.model and the unreadable cards\n%s", code, errText)
	}
	if strings.Contains(out+errText, "Cards-Secret-77") {
		t.Errorf("the password reached the output:\n%s", errText)
	}
}
