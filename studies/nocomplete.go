package studies

import (
	"fmt"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/studies/store"
)

// NoCompleteError: the study ran but measured nothing usable (cmd's
// exit 3). Class is set when every failed trial failed for the same
// class, Example is one of their reasons.
type NoCompleteError struct {
	Total   int
	Class   engines.Class
	Example string
}

func (e NoCompleteError) Error() string {
	if e.Class != "" {
		return fmt.Sprintf("the study has no complete trial (%d trials): every trial failed as %s (%s); see `servetune show` for the details", e.Total, e.Class, e.Example)
	}
	return fmt.Sprintf("the study has no complete trial (%d trials): every config failed; see `servetune show` for the reasons", e.Total)
}

// CommonFailure is the class every engine failure among trials shares
// (with the first one's reason), or "" when they differ or there is none.
// Trials that never launched (a broken rule, an interruption) do not count.
func CommonFailure(trials []store.Trial) (engines.Class, string) {
	var class engines.Class
	example := ""
	for _, t := range trials {
		switch {
		case t.Failure == nil:
			continue
		case class == "":
			class, example = t.Failure.Class, t.Failure.Message
		case t.Failure.Class != class:
			return "", ""
		}
	}
	return class, example
}
