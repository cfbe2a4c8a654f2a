package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// WriteJUnit writes the report as JUnit XML, which CI systems read: a
// test suite per variant and task, a test case per case whose failure
// lists the runs that failed and why. A case passes only when all its
// runs did (pass^N).
func (r *Report) WriteJUnit(w io.Writer) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type testsuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	all := testsuites{Name: "ptc test"}
	index := map[string]int{}
	suiteSeconds := map[int]float64{}
	type key struct{ variant, task, c string }
	failed := map[key][]string{}
	seconds := map[key]float64{}
	for _, res := range r.Results {
		k := key{res.Variant, res.Task, res.Case}
		seconds[k] += res.Duration.Seconds()
		if !res.Passed {
			failed[k] = append(failed[k], fmt.Sprintf("run %d: %s", res.Run, res.Why))
		}
	}
	for vi, v := range r.Variants {
		for _, c := range r.Cases {
			if c.PerVariant[vi].Runs == 0 {
				continue
			}
			name := v.Name + " " + c.Task
			i, ok := index[name]
			if !ok {
				i = len(all.Suites)
				index[name] = i
				all.Suites = append(all.Suites, testsuite{Name: name})
			}
			s := &all.Suites[i]
			k := key{v.Name, c.Task, c.Case}
			tc := testcase{Name: c.Case, Classname: c.Task, Time: fmt.Sprintf("%.3f", seconds[k])}
			if msgs := failed[k]; len(msgs) > 0 {
				st := c.PerVariant[vi]
				tc.Failure = &failure{Type: "ptc.eval",
					Message: fmt.Sprintf("%d of %d runs failed", st.Runs-st.Passed, st.Runs),
					Text:    strings.Join(msgs, "\n")}
				s.Failures++
				all.Failures++
			}
			suiteSeconds[i] += seconds[k]
			s.Tests++
			all.Tests++
			s.Cases = append(s.Cases, tc)
		}
	}
	for i := range all.Suites {
		all.Suites[i].Time = fmt.Sprintf("%.3f", suiteSeconds[i])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
