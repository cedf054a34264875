package studies

import (
	"context"

	"github.com/servetune/servetune/search"
)

// saveOutlook stores the prior's view of the space's regions, when the
// sampler has a prior, for the report to set beside what was measured.
func (l *loop) saveOutlook(ctx context.Context) {
	o, ok := l.sampler.(search.Outlooker)
	if !ok {
		return
	}
	if err := l.Store.SetOutlook(context.WithoutCancel(ctx), o.Outlook()); err != nil {
		l.Log.Warn().Err(err).Msg("could not store the prior's outlook")
	}
}
