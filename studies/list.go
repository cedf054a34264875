package studies

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// Listed is one study `servetune studies` lists, opened on demand: its
// space, trials and where it is.
type Listed struct {
	Name string
	Open func() (*space.Space, []store.Trial, string, error)
	// Storage marks the row of a storage that could not list its
	// studies: WriteList fails with its error once the table is out, so
	// a script reading the exit status is not told the list is complete.
	Storage bool
}

// List lists the studies under dir, or in url's shared storage when it
// is PostgreSQL; a storage that cannot list them is one line saying so.
func List(ctx context.Context, dir, url string) []Listed {
	if !store.IsPostgres(url) {
		var out []Listed
		for _, d := range studydir.List(dir) {
			out = append(out, Listed{Name: d.Name(), Open: func() (*space.Space, []store.Trial, string, error) {
				sp, ts, err := OpenStudy(ctx, d)
				return sp, ts, d.DB(), err
			}})
		}
		return out
	}
	stores, err := store.PostgresStudies(ctx, url)
	out := []Listed{}
	if err != nil {
		out = append(out, Listed{Name: "-", Storage: true, Open: func() (*space.Space, []store.Trial, string, error) { return nil, nil, store.Redact(url), err }})
	}
	for _, st := range stores {
		out = append(out, Listed{Name: st.Path(), Open: func() (*space.Space, []store.Trial, string, error) {
			defer st.Close()
			sp, ts, err := ReadStudy(ctx, st, st.Path())
			store.MarkHolderGone(ts, time.Now(), store.SharedLiveness())
			return sp, ts, st.Path(), err
		}})
	}
	return out
}

// WriteList writes the `servetune studies` table: each study's trials,
// complete trials and best result (or front), or why it did not open.
func WriteList(w io.Writer, list []Listed) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "study\ttrials\tcomplete\tbest\tpath")
	var failed error
	for _, s := range list {
		sp, trials, p, err := s.Open()
		if err != nil {
			fmt.Fprintf(tw, "%s\t-\t-\t%v\t%s\n", s.Name, err, p)
			if s.Storage {
				failed = fmt.Errorf("could not list the studies of %s", p)
			}
			continue
		}
		r := BuildReport(sp, trials, nil)
		best := "-"
		if len(r.Winners) > 0 {
			o := sp.Objectives[0]
			best = fmt.Sprintf("%s %.2f", o.Metric, r.Winners[0].Values[0])
			if r.MultiObjective {
				best = fmt.Sprintf("front of %d", len(r.Winners))
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", sp.Study.Name, r.Counts.Total, r.Counts.Complete, best, p)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return failed
}

// StoredOutlook reads, writing nothing, the prior's view of the space
// stored with the study name: in url's shared storage when it is
// PostgreSQL, else in d.
func StoredOutlook(ctx context.Context, url string, d studydir.Dir, name string) ([]store.Region, error) {
	if store.IsPostgres(url) {
		st, err := store.OpenPostgres(ctx, url, name, store.ReadOnly)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		return st.Outlook(ctx)
	}
	st, err := d.OpenReadOnly(ctx)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Outlook(ctx)
}
