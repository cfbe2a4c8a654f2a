package main

import (
	"context"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/ptc-go/ptc/llm"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// updateScreenshots rewrites docs/img/dev-*.png from TestDevBrowser.
var updateScreenshots = flag.Bool("update-screenshots", false, "write the screenshots of ptc dev's page to docs/img")

// gatedModel answers with devReplies, but holds its second reply until
// release is closed: the first turn must be on the page while the
// mission still runs.
func gatedModel(waiting chan<- struct{}, release <-chan struct{}) llm.Func {
	inner := llmtest.NewScript(devReplies()...).Func()
	var calls int
	var mu sync.Mutex
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 {
			close(waiting)
			select {
			case <-release:
			case <-ctx.Done():
				return llm.Response{}, ctx.Err()
			}
		}
		return inner(ctx, req)
	}
}

// TestDevBrowser drives ptc dev's page in headless Chromium against a
// server with a scripted model: it opens the address with the token,
// runs an agent and sees its first turn (program, tool call, output)
// arrive while the mission still waits for the model, sees the outcome,
// opens the saved trace, edits the prompt and runs again, compares the
// two runs, replays the first offline, cancels a run and runs the test
// cases. Throughout, every request the page
// makes goes to the server itself, the page logs no error (a CSP
// violation would be one), and the firewalled value never shows.
func TestDevBrowser(t *testing.T) {
	bin := findBrowser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser test of ptc dev is skipped (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("-short: the browser test is skipped")
	}
	waiting, release := make(chan struct{}), make(chan struct{})
	var models sync.Mutex
	opened := 0
	// A folder named as people name theirs: the page shows its name.
	dir := filepath.Join(t.TempDir(), "agents")
	if err := os.Rename(devFolder(t), dir); err != nil {
		t.Fatal(err)
	}
	typed := "---\ndescription: Shows the form's fields.\nsignature: (n :int, x :float, ok :bool, k :keyword, tags [:string], opts {a :int}) -> :int\n---\nAdd them up.\n"
	if err := os.WriteFile(filepath.Join(dir, "typed.md"), []byte(typed), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newDevHarness(t, dir, func() llm.Func {
		models.Lock()
		defer models.Unlock()
		opened++
		switch opened {
		case 1: // the first run
			return gatedModel(waiting, release)
		case 3: // the run the page cancels
			return func(ctx context.Context, _ llm.Request) (llm.Response, error) {
				<-ctx.Done()
				return llm.Response{}, ctx.Err()
			}
		}
		// The test cases run one after the other on one model: a script
		// for each.
		return llmtest.NewScript(append(devReplies(), devReplies()...)...).Func()
	})
	origin := h.ts.URL

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	note := func(s string) { mu.Lock(); problems = append(problems, s); mu.Unlock() }
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			u := e.Request.URL
			if !strings.HasPrefix(u, origin+"/") && u != origin && !strings.HasPrefix(u, "data:") {
				note("a request outside the server: " + u)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || m.Type == "warning" {
				note("console " + m.String())
			}
		}
	}()

	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				return err
			}
			if len(b) < 10_000 {
				t.Errorf("screenshot %s: %d bytes, a blank page?", name, len(b))
			}
			if *updateScreenshots {
				return os.WriteFile(filepath.Join("..", "..", "docs", "img", name+".png"), b, 0o644)
			}
			return nil
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// No animations: a screenshot shows the page at rest.
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
		t.Fatal(err)
	}

	// The address with the token; the server drops it from the address bar.
	do("open the page", chromedp.Navigate(origin+"/?token="+url.QueryEscape(h.s.Token())),
		chromedp.WaitVisible(`.agent-item[data-agent="digest"]`))
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	if s := text(`.agent-item[data-agent="broken"]`); !strings.Contains(s, "error") && !strings.Contains(s, "ERROR") {
		t.Errorf("the broken agent file is not marked: %q", s)
	}

	// An agent: its form comes from the signature, prefilled from the context.
	do("open the agent", chromedp.Click(`.agent-item[data-agent="digest"] a`), chromedp.WaitVisible(`#run-form input[name="topic"]`))
	if v, _ := chromedp.Run(ctx, chromedp.Value(`#run-form input[name="topic"]`)); v != "Go" {
		t.Errorf("the topic field holds %q, want the context's Go", v)
	}
	// Each input's field fits its type.
	do("the typed form", chromedp.Navigate(origin+"/#/agent/typed"), chromedp.WaitVisible(`#run-form input[name="n"]`))
	fields, _ := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(Array.from(
		document.querySelectorAll('#run-form [name]')).map(f => [f.name, f.tagName.toLowerCase() + (f.type && f.tagName === 'INPUT' ? ':' + f.type : '')]))`))
	for name, want := range map[string]string{"n": "input:number", "x": "input:number", "ok": "input:checkbox", "k": "input:text",
		"tags": "textarea", "opts": "textarea"} {
		if fields[name] != want {
			t.Errorf("the field of %s is %q, want %q (all: %v)", name, fields[name], want, fields)
		}
	}
	do("back to digest", chromedp.Navigate(origin+"/#/agent/digest"), chromedp.WaitVisible(`#run-form input[name="topic"]`))

	do("open the editor", chromedp.Click(`details.edit summary`), chromedp.WaitVisible(`#edit-prompt`))

	// A run, live: turn 1 is on the page while the model holds turn 2.
	do("run", chromedp.Click(`#run`), chromedp.WaitVisible(`#cancel`))
	select {
	case <-waiting:
	case <-ctx.Done():
		t.Fatal("the mission never asked for its second reply")
	}
	do("turn 1 arrives live", chromedp.WaitVisible(`.live-turn[data-turn="1"] .slot-program .code`),
		chromedp.WaitVisible(`.live-turn[data-turn="1"] details.call .badge.ok`))
	if done, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.hasAttribute('data-run-done')`)); done {
		t.Fatal("the run was over before its second reply: the turns did not arrive live")
	}
	if s := text(`.live-turn[data-turn="1"]`); !strings.Contains(s, "tool/lookup") || !strings.Contains(s, "key:") {
		t.Errorf("turn 1 lacks the tool call or the output: %q", s)
	}
	// The counters follow the run: one turn done, its LLM request, while
	// the model holds the second.
	if s := text(`#run-summary`); !regexp.MustCompile(`Turns\s*1\b`).MatchString(s) || !regexp.MustCompile(`LLM requests\s*1\b`).MatchString(s) {
		t.Errorf("the running summary does not count turn 1: %q", s)
	}
	close(release)
	do("the run ends", chromedp.WaitVisible(`body[data-run-done]`), chromedp.WaitVisible(`#open-trace`))
	if s := text(`#run-summary`); !strings.Contains(s, "{:count 2}") {
		t.Errorf("the outcome is not shown: %q", s)
	}
	do("the run page", shot("dev-run"))
	firstID, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.getAttribute('data-run-done')`))
	page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	if strings.Contains(page, devSecret) {
		t.Error("the firewalled value is on the run's page")
	}

	// The saved trace opens in the trace viewer.
	do("open the trace", chromedp.Navigate(origin+"/runs/"+firstID+"/view"), chromedp.WaitVisible(`body[data-rendered]`))
	if s := text(`#missions`); !strings.Contains(s, "Turn 2") || strings.Contains(s, devSecret) {
		t.Errorf("the trace page: %q", s)
	}

	// Edit the prompt, run again: the file is not touched.
	before, err := os.ReadFile(filepath.Join(h.dir, "digest.md"))
	if err != nil {
		t.Fatal(err)
	}
	do("edit and rerun", chromedp.Navigate(origin+"/#/agent/digest"), chromedp.WaitVisible(`#run-form`),
		chromedp.Click(`details.edit summary`), chromedp.SetValue(`#edit-prompt`, "Count the notes about {{topic}}, briefly."),
		chromedp.Click(`#run`), chromedp.WaitVisible(`body[data-run-done]`))
	after, _ := os.ReadFile(filepath.Join(h.dir, "digest.md"))
	if string(after) != string(before) {
		t.Error("a run with an edited prompt changed the agent file")
	}

	// History, then the two runs side by side.
	do("history", chromedp.Navigate(origin+"/#/history"), chromedp.WaitVisible(`table.history`))
	n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('table.history tbody tr').length`))
	if n != 2 {
		t.Fatalf("the history lists %d runs, want 2", n)
	}
	do("compare", chromedp.Click(`table.history tbody tr:nth-child(1) input`), chromedp.Click(`table.history tbody tr:nth-child(2) input`),
		chromedp.Click(`#compare`), chromedp.WaitVisible(`#compare-view`))
	if s := text(`#compare-view`); !strings.Contains(s, "briefly") || !strings.Contains(s, "tool/lookup") {
		t.Errorf("the comparison lacks the prompts or the programs: %q", s)
	}
	// The prompt changed (and with it the tokens the scripted model
	// counts); the programs and the result did not.
	rows, _ := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(Array.from(
		document.querySelectorAll('#compare-view .cmp-row:not(.cmp-head)')).map(r =>
		[r.querySelector('.cmp-label').firstChild.textContent, r.classList.contains('differs') ? 'differs' : r.classList.contains('same') ? 'same' : '']))`))
	for label, want := range map[string]string{"Prompt": "differs", "Turn 1": "same", "Turn 2": "same", "Result": "same", "Turns": "same"} {
		if rows[label] != want {
			t.Errorf("compare row %q: %q, want %q (rows: %v)", label, rows[label], want, rows)
		}
	}
	do("the comparison", shot("dev-compare"))

	// The first run replayed offline from its recorded replies.
	do("replay", chromedp.Navigate(origin+"/#/run/"+firstID), chromedp.WaitVisible(`#replay`), chromedp.Click(`#replay`),
		chromedp.WaitVisible(`.replay-note`))
	if s := text(`.replay-note`); !strings.Contains(s, "matches") {
		t.Errorf("the replay: %q", s)
	}

	// A run the page cancels while it waits for the model.
	do("cancel", chromedp.Navigate(origin+"/#/agent/digest"), chromedp.WaitVisible(`#run`), chromedp.Click(`#run`),
		chromedp.WaitVisible(`#cancel`), chromedp.Click(`#cancel`),
		chromedp.WaitVisible(`body[data-run-done]`), chromedp.WaitVisible(`#run-summary [data-status="cancelled"]`))
	// The turn the cancel cut short shows that the model never replied,
	// not a green "done".
	if s := strings.ToLower(text(`.live-turn[data-turn="1"]`)); !strings.Contains(s, "no reply") || strings.Contains(s, "done") {
		t.Errorf("the cancelled turn: %q", s)
	}

	// The test cases.
	do("tests", chromedp.Navigate(origin+"/#/agent/digest"), chromedp.WaitVisible(`#run-tests`), chromedp.Click(`#run-tests`),
		chromedp.WaitVisible(`#tests tr.pass`), chromedp.WaitVisible(`#tests tr.fail`))
	if s := text(`#tests-summary`); !strings.Contains(s, "1 of 2 passed") {
		t.Errorf("the tests' summary: %q", s)
	}

	do("the agent's page", chromedp.WaitVisible(`#agent-runs-table`), shot("dev-agent"))

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
}
