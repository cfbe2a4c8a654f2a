package difftest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptc-go/ptc/internal/textutil"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/lisp/conformance"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.edn from the generator")

const (
	corpusPath     = "testdata/corpus.edn"
	driverPath     = "testdata/driver.clj"
	pendingPath    = "testdata/pending.txt"
	deviationsPath = "../../docs/deviations.md"

	// minCorpus is the size the corpus must keep.
	minCorpus = 1000
	// ptcTimeout bounds one program in ptc-go (the driver gives Clojure 2 s).
	ptcTimeout = 2 * time.Second
	// driverTimeout bounds the whole JVM run (about 10 s on a quiet
	// machine): generous, for a busy one.
	driverTimeout = 5 * time.Minute
	// jvmFlags are passed to the JVM (through JAVA_TOOL_OPTIONS).
	jvmFlags = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"
)

// TestCorpusFile checks that testdata/corpus.edn is what the generator and
// testdata/handwritten.txt produce (run `go generate ./lisp/difftest/`
// after changing them), that it reads back, and that its ids are usable in
// docs/deviations.md.
func TestCorpusFile(t *testing.T) {
	entries, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	want := FormatEDN(entries)
	if *update {
		if err := os.WriteFile(corpusPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date: run `go generate ./lisp/difftest/`", corpusPath)
	}
	back, err := ParseEDN(string(got))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(entries) {
		t.Fatalf("read back %d entries, want %d", len(back), len(entries))
	}
	for i := range back {
		if back[i] != entries[i] {
			t.Fatalf("entry %d reads back as %+v, want %+v", i, back[i], entries[i])
		}
	}
	hand, _ := ParseHandwritten(handwritten)
	if len(entries) < minCorpus {
		t.Errorf("the corpus has %d programs, want at least %d", len(entries), minCorpus)
	}
	t.Logf("corpus: %d programs (%d generated, %d hand-written)", len(entries), len(entries)-len(hand), len(hand))
}

func TestParseEDN(t *testing.T) {
	in := []Entry{
		{"clj:a", `(str "a\"b" \c "\\" "é😀")`},
		{"clj:b", "(do\n\t1\r\n 2)\u0001"},
	}
	out, err := ParseEDN(FormatEDN(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0] != in[0] || out[1] != in[1] {
		t.Fatalf("round trip: got %q", out)
	}
	if _, err := ParseEDN(`[{:id "x" :src "unterminated}]`); err == nil {
		t.Error("an unterminated string must be an error")
	}
	if err := CheckIDs([]Entry{{"clj:a", "1"}, {"clj:a", "2"}, {"x", "3"}, {"clj:b c", "4"}}); err == nil ||
		!strings.Contains(err.Error(), "duplicate") || !strings.Contains(err.Error(), `"x"`) ||
		!strings.Contains(err.Error(), "space") {
		t.Errorf("CheckIDs: %v", err)
	}
}

func TestNormalize(t *testing.T) {
	res, err := lisp.Run(context.Background(), `[inc (fn [x] x) (re-pattern "a+") (def v 1) {:k #{:a}} (keyword "a b")]`, lisp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := lisp.Print(normalize(res.Value), lisp.PrintOptions{})
	want := `["#fn" "#fn" "#regex a+" "#var v" {:k #{:a}} "#keyword a b"]`
	if got != want {
		t.Errorf("normalize = %s, want %s", got, want)
	}
}

func TestSymbols(t *testing.T) {
	got := strings.Join(Symbols(`(clojure.string/join "a b" [\a -1 :k x/y #(inc %)] ; c d`+"\n"+`'z)`), " ")
	if want := "clojure.string/join x/y inc % z"; got != want {
		t.Errorf("Symbols = %q, want %q", got, want)
	}
}

// outcome is one side's result: a value, or an error description.
type outcome struct {
	ok       bool
	bad      bool       // the driver printed something unreadable
	internal bool       // ptc-go failed with an internal error: never an agreement
	value    lisp.Value // when ok
	text     string     // printed value, or the error
}

func (o outcome) String() string {
	if o.ok {
		return o.text
	}
	return "error: " + o.text
}

// TestDifferential runs every corpus program in Clojure (one JVM, the
// driver) and in ptc-go and compares the results with Clojure's =. Programs
// that fail on both sides agree. Every disagreement must be listed, by id,
// in the last column of a table of docs/deviations.md (the appendix "Clojure
// differential ids"), or in testdata/pending.txt while it is investigated
// (the file is optional), and every listed id must still disagree.
func TestDifferential(t *testing.T) {
	clj, err := clojureCommand()
	if err != nil {
		t.Skipf("differential tests against Clojure skipped: %v", err)
	}
	data, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := ParseEDN(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckIDs(corpus); err != nil {
		t.Fatal(err)
	}
	allowed, err := allowedDisagreements()
	if err != nil {
		t.Fatal(err)
	}

	// Start the JVM first; evaluate the ptc side while it runs.
	names := builtinNames()
	namesFile := filepath.Join(t.TempDir(), "names.txt")
	if err := os.WriteFile(namesFile, []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	type driverResult struct {
		out []byte
		err error
	}
	done := make(chan driverResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), driverTimeout)
		defer cancel()
		args := append(append([]string{}, clj[1:]...), driverPath, corpusPath, namesFile)
		cmd := exec.CommandContext(ctx, clj[0], args...)
		// The driver compiles thousands of tiny forms once each: the C2
		// compiler only burns CPU (these flags halve the run time).
		cmd.Env = append(os.Environ(), "JAVA_TOOL_OPTIONS="+
			strings.TrimSpace(os.Getenv("JAVA_TOOL_OPTIONS")+" "+jvmFlags))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			err = fmt.Errorf("%v: %w\n%s", cmd.Args, err, stderr.String())
		}
		done <- driverResult{out, err}
	}()

	ptc := runAllPTC(corpus)
	ptcTime := time.Since(start)

	dr := <-done
	if dr.err != nil {
		t.Fatalf("the Clojure driver failed: %v", dr.err)
	}
	t.Logf("ptc-go: %v for %d programs; Clojure driver: %v", ptcTime.Round(time.Millisecond),
		len(corpus), time.Since(start).Round(time.Millisecond))
	kinds, cljResults, err := parseDriverOutput(dr.out)
	if err != nil {
		t.Fatal(err)
	}

	checkDriverSanity(t, cljResults)
	checkCoverage(t, corpus, names, kinds)

	var agree, bothFail, listed int
	var dump strings.Builder
	seen := map[string]bool{}
	for i, e := range corpus {
		seen[e.ID] = true
		c, ok := cljResults[e.ID]
		if !ok {
			t.Errorf("%s: no result from the Clojure driver", e.ID)
			continue
		}
		if c.bad {
			t.Errorf("%s: %s", e.ID, c.text)
			continue
		}
		p := ptc[i]
		// Both failing is agreement (error kinds do not map onto Java
		// exceptions), unless ptc-go failed with an internal error.
		same := (c.ok && p.ok && conformance.Equivalent(c.value, p.value) && listsAgree(c.value, p.value)) || (!c.ok && !p.ok && !p.internal)
		reason, isListed := allowed[e.ID]
		status := "agree"
		switch {
		case same && isListed:
			status = "agree-but-listed"
			t.Errorf("%s agrees with Clojure now: remove it from %s\n  program: %s\n  result:  %s",
				e.ID, reason, e.Src, p)
		case same:
			agree++
			if !c.ok {
				bothFail++
				status = "both-fail"
			}
		case isListed:
			listed++
			status = "listed"
		default:
			status = "unlisted"
			t.Errorf("%s disagrees with Clojure and is not a listed deviation:\n  program: %s\n  clojure: %s\n  ptc-go:  %s",
				e.ID, e.Src, c, p)
		}
		fmt.Fprintf(&dump, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, status, oneLine(e.Src), oneLine(c.String()), oneLine(p.String()), reason)
	}
	var stale []string
	for id, reason := range allowed {
		if !seen[id] {
			stale = append(stale, id+" ("+reason+")")
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("listed differences that are not in the corpus: %v", stale)
	}
	// DIFFTEST_DUMP=file writes every program with its status (agree,
	// both-fail, listed, unlisted...), both results and where it is listed,
	// tab-separated: the raw material of REPORT.md.
	if path := os.Getenv("DIFFTEST_DUMP"); path != "" {
		if err := os.WriteFile(path, []byte(dump.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d programs: %d agree (%d fail on both sides), %d disagree as listed deviations, %d disagree unlisted",
		len(corpus), agree, bothFail, listed, len(corpus)-agree-listed)
}

// checkDriverSanity guards against a broken driver, which would make every
// program "fail on both sides" and so agree: a few programs must give their
// known values, and most programs must succeed in Clojure.
func checkDriverSanity(t *testing.T, results map[string]outcome) {
	t.Helper()
	known := map[string]string{
		"clj:let/basic":             "3",
		"clj:thread/last":           "165",
		"clj:pipelines/word-count":  `(["the" 3] ["and" 2] ["bat" 1])`,
		"clj:strings/pr-str-nested": `"{:a [1 2.5 \"x\" nil], :b #{:k}}"`,
		"clj:div/pos-pos":           `"#ratio 7/2"`,
		"clj:char/int":              `"a"`,
	}
	for id, want := range known {
		c, ok := results[id]
		w, err := lisp.Read(want, lisp.ReadOptions{Format: lisp.ReadEDN})
		if err != nil {
			t.Fatal(err)
		}
		if !ok || !c.ok || !conformance.Equivalent(w, c.value) {
			t.Fatalf("driver sanity check: %s gave %v, want %s", id, c, want)
		}
	}
	failed := 0
	for _, c := range results {
		if !c.ok {
			failed++
		}
	}
	if failed > len(results)/4 {
		t.Fatalf("driver sanity check: %d of %d programs fail in Clojure", failed, len(results))
	}
}

// clojureCommand returns the command that runs a Clojure script: clojure, or
// java with the Clojure jar ($CLOJURE_JAR or the Debian location).
func clojureCommand() ([]string, error) {
	if p, err := exec.LookPath("clojure"); err == nil {
		return []string{p}, nil
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, errors.New("neither clojure nor java is on PATH (install Clojure, e.g. apt-get install clojure)")
	}
	for _, jar := range []string{os.Getenv("CLOJURE_JAR"), "/usr/share/java/clojure.jar"} {
		if jar == "" {
			continue
		}
		if _, err := os.Stat(jar); err == nil {
			return []string{java, "-cp", jar, "clojure.main"}, nil
		}
	}
	return nil, errors.New("clojure is not on PATH and no Clojure jar was found (set CLOJURE_JAR)")
}

// runAllPTC runs the corpus in ptc-go on all but one of the available CPUs
// (the JVM runs meanwhile).
func runAllPTC(corpus []Entry) []outcome {
	out := make([]outcome, len(corpus))
	workers := max(1, runtime.GOMAXPROCS(0)-1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(corpus) {
					return
				}
				out[i] = runPTC(corpus[i].Src)
			}
		}()
	}
	wg.Wait()
	return out
}

// runPTC runs one program in ptc-go and normalizes its value the way the
// driver normalizes Clojure's.
func runPTC(src string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), ptcTimeout+time.Second)
	defer cancel()
	res, err := lisp.Run(ctx, src, lisp.Options{Limits: lisp.Limits{Timeout: ptcTimeout}})
	if err != nil {
		kind := "error"
		var le *lisp.Error
		if errors.As(err, &le) {
			kind = string(le.Kind)
		}
		return outcome{text: kind + ": " + oneLine(err.Error()), internal: errors.Is(err, lisp.InternalError)}
	}
	if res.Status != lisp.Completed {
		return outcome{text: "status " + res.Status.String()}
	}
	v := normalize(res.Value)
	return outcome{ok: true, value: v, text: lisp.Print(v, lisp.PrintOptions{})}
}

// normalize replaces the values the driver cannot print as data by the same
// tagged strings the driver uses (see testdata/driver.clj).
func normalize(v lisp.Value) lisp.Value {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return v
	case *big.Int:
		// As the driver: a long when it fits, else "#bigint 123...".
		if x.IsInt64() {
			return x.Int64()
		}
		return "#bigint " + x.String()
	case *lisp.Decimal:
		return "#bigdec " + x.String()
	case lisp.Keyword:
		if back, err := lisp.Read(lisp.Print(x, lisp.PrintOptions{}), lisp.ReadOptions{Format: lisp.ReadEDN}); err != nil || back != v {
			return "#keyword " + strings.TrimPrefix(lisp.Print(x, lisp.PrintOptions{}), ":")
		}
		return v
	case *lisp.Vector:
		items := make([]lisp.Value, x.Len())
		for i := range items {
			items[i] = normalize(x.At(i))
		}
		if x.IsList() {
			return lisp.NewList(items)
		}
		return lisp.NewVector(items)
	case lisp.Symbol:
		return "#symbol " + x.String()
	case lisp.Class:
		return "#class " + x.Name
	case *lisp.Map:
		kvs := make([]lisp.Value, 0, 2*x.Len())
		for k, val := range x.All() {
			kvs = append(kvs, normalize(k), normalize(val))
		}
		return lisp.NewMap(kvs...)
	case *lisp.Set:
		items := make([]lisp.Value, 0, x.Len())
		for item := range x.All() {
			items = append(items, normalize(item))
		}
		return lisp.NewSet(items...)
	case *lisp.Closure, *lisp.Builtin:
		return "#fn"
	case *lisp.Regex:
		return "#regex " + x.Source
	case *lisp.Var:
		return "#var " + x.Name
	case *lisp.Exception:
		return "#object " + x.ClassName()
	}
	return "#object " + lisp.TypeName(v)
}

// listsAgree is stricter than = where PTC-Lisp has real lists: a list of
// ptc-go must be a sequence (a list or a lazy seq, printed (...)) in
// Clojure, never a vector. ptc-go's vector where Clojure has a sequence is
// deviation 33 (map, filter, rest... return vectors), and = decides.
func listsAgree(clj, ptc lisp.Value) bool {
	switch p := ptc.(type) {
	case *lisp.Vector:
		c, ok := clj.(*lisp.Vector)
		if !ok || p.IsList() && !c.IsList() || p.Len() != c.Len() {
			return !ok // not both sequential: = already decided
		}
		for i := 0; i < p.Len(); i++ {
			if !listsAgree(c.At(i), p.At(i)) {
				return false
			}
		}
	case *lisp.Map:
		c, ok := clj.(*lisp.Map)
		if !ok {
			return true
		}
		for k, v := range p.All() {
			if cv, found := c.Get(k); found && !listsAgree(cv, v) {
				return false
			}
		}
	}
	return true
}

// parseDriverOutput reads the driver's lines: "#name NAME\tKIND" and
// "ID\tok\tVALUE" or "ID\terror\tTEXT".
func parseDriverOutput(out []byte) (kinds map[string]string, results map[string]outcome, err error) {
	kinds = map[string]string{}
	results = map[string]outcome{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "#name "); ok {
			name, kind, _ := strings.Cut(rest, "\t")
			kinds[name] = kind
			continue
		}
		id, rest, ok1 := strings.Cut(line, "\t")
		status, text, ok2 := strings.Cut(rest, "\t")
		if !ok1 || !ok2 {
			return nil, nil, fmt.Errorf("driver output: malformed line %q", line)
		}
		switch status {
		case "ok":
			v, err := lisp.Read(text, lisp.ReadOptions{Format: lisp.ReadEDN})
			if err != nil {
				// reported as a failure: the driver's conversion must
				// be extended
				results[id] = outcome{bad: true, text: fmt.Sprintf("unreadable driver output %q: %v", text, err)}
				continue
			}
			results[id] = outcome{ok: true, value: v, text: text}
		case "error":
			results[id] = outcome{text: text}
		default:
			return nil, nil, fmt.Errorf("driver output: unknown status in %q", line)
		}
	}
	return kinds, results, sc.Err()
}

// allowedDisagreements returns the corpus ids allowed to disagree, with
// where they are listed: the clj: ids of the deviations tables (with the
// row's topic) and those of testdata/pending.txt, when that file exists.
func allowedDisagreements() (map[string]string, error) {
	f, err := os.Open(deviationsPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := conformance.Deviations(f)
	if err != nil {
		return nil, err
	}
	allowed := map[string]string{}
	for id, topic := range rows {
		if strings.HasPrefix(id, "clj:") {
			allowed[id] = "docs/deviations.md (row " + topic + ")"
		}
	}
	pending, err := os.ReadFile(pendingPath)
	if errors.Is(err, os.ErrNotExist) {
		return allowed, nil
	}
	if err != nil {
		return nil, err
	}
	section := ""
	for n, line := range strings.Split(string(pending), "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
			if s, ok := strings.CutPrefix(strings.TrimSpace(c), "REPORT:"); ok {
				section = strings.TrimSpace(s)
			}
			continue
		}
		id, _, _ := strings.Cut(line, "#")
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !strings.HasPrefix(id, "clj:") {
			return nil, fmt.Errorf("%s:%d: %q is not a clj: id", pendingPath, n+1, id)
		}
		if where, dup := allowed[id]; dup {
			return nil, fmt.Errorf("%s:%d: %s is already listed in %s", pendingPath, n+1, id, where)
		}
		allowed[id] = pendingPath + " (" + section + ")"
	}
	return allowed, nil
}

// checkCoverage checks that every builtin shared with Clojure (as the driver
// classified the names of builtinNames) is used by the corpus: names of
// clojure.core and Java statics as they are, names that Clojure has only in
// clojure.string or clojure.set in their qualified form.
func checkCoverage(t *testing.T, corpus []Entry, names []string, kinds map[string]string) {
	t.Helper()
	uses := map[string]int{}
	for _, e := range corpus {
		for _, s := range Symbols(e.Src) {
			uses[s]++
		}
	}
	var missing []string
	shared := 0
	for _, n := range names {
		kind, ok := kinds[n]
		if !ok {
			t.Errorf("the driver did not classify the builtin %s", n)
			continue
		}
		var sym string
		switch kind {
		case "core", "java", "qualified":
			sym = n
		case "string":
			sym = "clojure.string/" + n
		case "set":
			sym = "clojure.set/" + n
		default:
			continue // PTC-only
		}
		shared++
		if uses[sym] == 0 {
			missing = append(missing, sym)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the corpus uses none of these builtins shared with Clojure: %s", strings.Join(missing, " "))
	}
	t.Logf("%d of %d builtins are shared with Clojure; the corpus uses %d of them", shared, len(names), shared-len(missing))
}

func oneLine(s string) string { return textutil.Clip(textutil.OneLine(s), 300) }

// builtinNames is every builtin name: the documentation entries' names and
// aliases (lisp.Docs), special forms left out.
func builtinNames() []string {
	var names []string
	for _, d := range lisp.Docs() {
		if !d.Special {
			names = append(names, d.Name)
		}
		names = append(names, d.Aliases...)
	}
	slices.Sort(names)
	return names
}
