package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/report"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func reportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a study's report: one self-contained HTML page with plots, or Markdown with SVG files",
		ArgsUsage: "STUDY (a name under --dir, or a study.db path)",
		Description: `The report holds the environment, baseline vs the chosen configs on every
profile, the Pareto front, best-so-far curves, per-knob slices, where the
study ran out of memory, which knobs mattered, the serving commands and
the failures. Without --html or --markdown it writes STUDY-report.html in
the current directory. The study is opened read-only.`,
		Flags: []cli.Flag{dirFlag(), storageFlag(),
			&cli.StringFlag{Name: "html", Usage: "write the HTML report to `FILE`"},
			&cli.StringFlag{Name: "markdown", Usage: "write report.md and its SVG plots into `DIR`"},
		},
		Action: func(c *cli.Context) error {
			if c.String("html") != "" && c.String("markdown") != "" {
				return usagef("report: give --html or --markdown, not both")
			}
			sp, trials, err := studyArg(c)
			if err != nil {
				return err
			}
			outlook, err := studyOutlook(c)
			if err != nil {
				return err
			}
			kept, err := studies.KeptPredictions(sp, studydir.Of(c.String("dir"), c.Args().First()))
			if err != nil {
				return err
			}
			full := report.Build(sp, trials, renderCommand(sp), report.Meta{Version: report.Version(), Now: time.Now(), Outlook: outlook, Kept: kept})
			if dir := c.String("markdown"); dir != "" {
				if err := full.WriteMarkdown(dir); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "Report written to %s\n", filepath.Join(dir, report.MarkdownFile))
				return nil
			}
			file := c.String("html")
			if file == "" {
				file = sp.Study.Name + "-report.html"
			}
			return writeHTML(e, full, file)
		},
	}
}

func writeHTML(e *env, full report.Full, file string) error {
	out, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := full.HTML(out); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(e.stdout, "Report written to %s\n", file)
	return nil
}

// studyOutlook reads the prior's view of the space stored with the study
// named by the first argument (studyArg has checked that it exists).
func studyOutlook(c *cli.Context) ([]store.Region, error) {
	arg := c.Args().First()
	url, err := storageURL(c.String("storage"), nil)
	if err != nil {
		return nil, err
	}
	return studies.StoredOutlook(c.Context, url, studydir.Of(c.String("dir"), arg), arg)
}
