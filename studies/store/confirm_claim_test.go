package store

import (
	"errors"
	"testing"
)

// conformRemeasure: a noise repeat or confirmation passes the
// no-config-twice check up to measurements measurements of the
// config, an ordinary proposal never; a revisit passes while every trial
// of its config was pruned, once.
func conformRemeasure(t *testing.T, b backend) {
	st := b.open(t, Create)
	first := trialOf("sampler", "w/0", 1)
	mustClaim(t, st, &first, 20, 1)
	finishAs(t, st, &first, Complete, nil)
	if again := trialOf("prior", "w/1", 1); !errors.Is(claim(st, &again, 20, 1), ErrTaken) {
		t.Error("an ordinary proposal measured a config a second time")
	}
	for i := 1; i < measurements; i++ {
		origin := "confirm"
		if i == 1 {
			origin = "noise"
		}
		tr := trialOf(origin, "w/0", 1)
		mustClaim(t, st, &tr, 20, 1)
	}
	if more := trialOf("confirm", "w/1", 1); !errors.Is(claim(st, &more, 20, 1), ErrTaken) {
		t.Errorf("a confirmation measured a config more than %d times", measurements)
	}
	pruned := trialOf("sampler", "w/0", 2)
	mustClaim(t, st, &pruned, 20, 1)
	finishAs(t, st, &pruned, Pruned, nil)
	revisit := trialOf("revisit", "w/0", 2)
	mustClaim(t, st, &revisit, 20, 1)
	if twice := trialOf("revisit", "w/1", 2); !errors.Is(claim(st, &twice, 20, 1), ErrTaken) {
		t.Error("a pruned config was revisited twice")
	}
	if measured := trialOf("revisit", "w/1", 1); !errors.Is(claim(st, &measured, 20, 1), ErrTaken) {
		t.Error("a revisit measured a config that completed")
	}
}
