package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what Run measured: per variant and per case, and every run.
type Report struct {
	// Runs is how many times each case ran per variant.
	Runs int `json:"runs_per_case"`
	// Variants sum up each variant over every case.
	Variants []Stats      `json:"variants"`
	Cases    []CaseReport `json:"cases"`
	// Results are the runs, in the order of tasks, cases, runs, variant by
	// variant; runs a cancelled context never started are missing.
	Results []*RunResult `json:"results"`
}

// CaseReport is one case on each variant (Stats in the order of
// Report.Variants).
type CaseReport struct {
	Task       string  `json:"task"`
	Case       string  `json:"case"`
	Check      string  `json:"check"`
	PerVariant []Stats `json:"per_variant"`
}

// Stats are the figures of a variant's runs, over every case or of one
// case. Means are per run.
type Stats struct {
	// Name and Profile are the variant's.
	Name    string `json:"name"`
	Profile string `json:"profile,omitempty"`
	Runs    int    `json:"runs"`
	Passed  int    `json:"passed"`
	// PassAt1 is the chance that one run passes: passed / runs of a
	// case; for a variant, the mean over its cases.
	PassAt1 float64 `json:"pass_at_1"`
	// PassAll is pass^N: for a case, 1 when all its runs passed, else 0;
	// for a variant, the share of cases whose runs all passed.
	PassAll     float64 `json:"pass_all"`
	Turns       float64 `json:"turns"`
	ErrorTurns  float64 `json:"error_turns"`
	LLMRequests float64 `json:"llm_requests"`
	TokensIn    float64 `json:"tokens_in"`
	TokensOut   float64 `json:"tokens_out"`
	// Cost is the mean cost of a run in dollars, nil when unknown.
	Cost *float64 `json:"cost,omitempty"`
	// Latency is the mean duration of a run, P50 and P95 its
	// percentiles (not in JSON: the _ms fields are).
	Latency   time.Duration `json:"-"`
	P50, P95  time.Duration `json:"-"`
	LatencyMS float64       `json:"latency_ms"`
	P50MS     float64       `json:"p50_ms"`
	P95MS     float64       `json:"p95_ms"`
	// Reasons counts the failures by the mission's Fail reason ("" for a
	// mission that succeeded with a wrong answer is "wrong_answer").
	Reasons map[string]int `json:"reasons,omitempty"`
}

// newReport sums up the results.
func newReport(tasks []Task, variants []Variant, runs int, results []*RunResult) *Report {
	rep := &Report{Runs: runs, Results: results}
	type cell struct{ task, c, v string }
	by := map[cell][]*RunResult{}
	byV := map[string][]*RunResult{}
	for _, r := range results {
		by[cell{r.Task, r.Case, r.Variant}] = append(by[cell{r.Task, r.Case, r.Variant}], r)
		byV[r.Variant] = append(byV[r.Variant], r)
	}
	caseCount := map[string]int{}
	passAt1Sum, passAllSum := map[string]float64{}, map[string]float64{}
	for _, t := range tasks {
		for _, c := range t.Cases {
			cr := CaseReport{Task: t.Name, Case: c.Name, Check: checksText(c.Checks)}
			for _, v := range variants {
				s := statsOf(by[cell{t.Name, c.Name, v.Name}])
				s.Name, s.Profile = v.Name, v.Profile
				if s.Runs > 0 {
					s.PassAt1 = float64(s.Passed) / float64(s.Runs)
					if s.Passed == s.Runs {
						s.PassAll = 1
					}
					caseCount[v.Name]++
					passAt1Sum[v.Name] += s.PassAt1
					passAllSum[v.Name] += s.PassAll
				}
				cr.PerVariant = append(cr.PerVariant, s)
			}
			rep.Cases = append(rep.Cases, cr)
		}
	}
	for _, v := range variants {
		s := statsOf(byV[v.Name])
		if n := caseCount[v.Name]; n > 0 {
			s.PassAt1, s.PassAll = passAt1Sum[v.Name]/float64(n), passAllSum[v.Name]/float64(n)
		}
		s.Name, s.Profile = v.Name, v.Profile
		rep.Variants = append(rep.Variants, s)
	}
	return rep
}

func checksText(cs []Check) string {
	if len(cs) == 0 {
		return "succeeds"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}

// statsOf sums up runs (PassAt1 and PassAll are left to the caller).
func statsOf(rs []*RunResult) Stats {
	s := Stats{Runs: len(rs)}
	if len(rs) == 0 {
		return s
	}
	var cost float64
	costKnown := true
	ds := make([]time.Duration, 0, len(rs))
	var total time.Duration
	for _, r := range rs {
		if r.Passed {
			s.Passed++
		} else {
			reason := r.Reason
			if reason == "" {
				reason = "wrong_answer"
			}
			if s.Reasons == nil {
				s.Reasons = map[string]int{}
			}
			s.Reasons[reason]++
		}
		s.Turns += float64(r.Turns)
		s.ErrorTurns += float64(r.ErrorTurns)
		s.LLMRequests += float64(r.LLMRequests)
		s.TokensIn += float64(r.Tokens.Input)
		s.TokensOut += float64(r.Tokens.Output)
		if r.Cost == nil {
			costKnown = false
		} else {
			cost += *r.Cost
		}
		ds = append(ds, r.Duration)
		total += r.Duration
	}
	n := float64(len(rs))
	s.Turns /= n
	s.ErrorTurns /= n
	s.LLMRequests /= n
	s.TokensIn /= n
	s.TokensOut /= n
	if costKnown {
		c := cost / n
		s.Cost = &c
	}
	sorted := sortedDurations(ds)
	s.Latency = total / time.Duration(len(rs))
	s.P50 = sorted[(len(sorted)-1)/2]
	s.P95 = sorted[min(len(sorted)-1, (len(sorted)*95+99)/100-1)]
	s.LatencyMS, s.P50MS, s.P95MS = ms(s.Latency), ms(s.P50), ms(s.P95)
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Passed reports whether every run of every variant passed.
func (r *Report) Passed() bool {
	for _, res := range r.Results {
		if !res.Passed {
			return false
		}
	}
	return len(r.Results) > 0
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// TableOptions shape WriteTable's output.
type TableOptions struct {
	// NoTimings leaves latency out, for output that must not vary.
	NoTimings bool
}

// WriteTable writes the report for a person: a row per case with each
// variant's passes ("3/3"), then the variants' summaries side by side.
func (r *Report) WriteTable(w io.Writer, opts TableOptions) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"task", "case"}
	for _, v := range r.Variants {
		head = append(head, v.Name)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, c := range r.Cases {
		row := []string{c.Task, c.Case}
		for _, s := range c.PerVariant {
			cellText := "—"
			if s.Runs > 0 {
				cellText = fmt.Sprintf("%d/%d", s.Passed, s.Runs)
				if s.Passed < s.Runs {
					cellText += " ✗"
				}
			}
			row = append(row, cellText)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	line := func(label string, f func(Stats) string) {
		row := []string{label, ""}
		for _, v := range r.Variants {
			row = append(row, f(v))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	fmt.Fprintln(tw, strings.Repeat("\t", len(head)-1))
	line("pass@1", func(v Stats) string { return fmt.Sprintf("%.0f%%", 100*v.PassAt1) })
	line(fmt.Sprintf("pass^%d", r.Runs), func(v Stats) string { return fmt.Sprintf("%.0f%%", 100*v.PassAll) })
	line("turns (errors) per run", func(v Stats) string { return fmt.Sprintf("%.1f (%.1f)", v.Turns, v.ErrorTurns) })
	line("tokens in/out per run", func(v Stats) string {
		return fmt.Sprintf("%s / %s", kilo(v.TokensIn), kilo(v.TokensOut))
	})
	line("cost per run", func(v Stats) string {
		if v.Cost == nil {
			return "—"
		}
		return fmt.Sprintf("$%.4f", *v.Cost)
	})
	if !opts.NoTimings {
		line("latency p50 / p95", func(v Stats) string {
			return fmt.Sprintf("%s / %s", roundDuration(v.P50), roundDuration(v.P95))
		})
	}
	return tw.Flush()
}

func kilo(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%.1fk", x/1000)
	}
	return fmt.Sprintf("%.0f", x)
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}
