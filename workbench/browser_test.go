package workbench

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm"
)

// findBrowser is a Chromium on PATH, "" for none.
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// gated answers as scripted does, but holds its second reply until
// release is closed: the first turn must be on the page while the mission
// still runs.
func gated(waiting chan<- struct{}, release <-chan struct{}) llm.Func {
	inner := scripted()
	var mu sync.Mutex
	calls := 0
	return func(ctx context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 {
			// A model that streams: the start of its reply shows on the
			// page while it holds the rest.
			if req.Stream != nil {
				req.Stream("Checking the forecast once more.\n")
			}
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

// TestBrowser drives the page in headless Chromium over Go agents (a
// typed Go tool, an untyped one, an MCP-like agent): it opens the address
// with the token, picks a Go agent, fills its form and runs it, sees its
// first turn arrive while the mission still waits for the model, then the
// result; runs the other agent's test cases; and lists the MCP agent's
// tools with the button that starts its servers. Throughout, every
// request goes to the workbench itself, the page logs no error (a CSP
// violation would be one), and the firewalled value never shows.
func TestBrowser(t *testing.T) {
	bin := findBrowser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser test of the workbench is skipped (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("-short: the browser test is skipped")
	}
	waiting, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	opened := 0
	src := &mcpSource{}
	agents := append(goAgents(), Agent{Name: "remote", ModelName: "script", MCP: "servers.json", Source: src,
		Config: agent.Config{Prompt: "Count the notes about {{topic}}.", Signature: "(topic :string) -> {count :int}"}})
	h := newHarness(t, Options{Agents: agents, Title: "my agents", Models: func(_ context.Context, name string) (llm.Func, error) {
		if name != "script" {
			return nil, fmt.Errorf("no model %s", name)
		}
		mu.Lock()
		defer mu.Unlock()
		opened++
		if opened == 1 {
			return gated(waiting, release), nil
		}
		return scripted(), nil
	}})
	origin := h.ts.URL

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	var pmu sync.Mutex
	var problems []string
	note := func(s string) { pmu.Lock(); problems = append(problems, s); pmu.Unlock() }
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			u := e.Request.URL
			if !strings.HasPrefix(u, origin+"/") && u != origin && !strings.HasPrefix(u, "data:") {
				note("a request outside the workbench: " + u)
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

	do("open the page", chromedp.Navigate(origin+"/?token="+url.QueryEscape(h.w.Token())),
		chromedp.WaitVisible(`.agent-item[data-agent="weather"]`))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	if s := text(`.bar .home`); s != "ptc workbench" {
		t.Errorf("the header says %q", s)
	}
	if s := text(`main`); !strings.Contains(s, "3 agents") || strings.Contains(s, "agent file") {
		t.Errorf("the home page: %q", s)
	}

	// A Go agent: its form from the signature, prefilled from its Input;
	// its typed tool listed; its prompt shown, not editable.
	do("pick the Go agent", chromedp.Click(`.agent-item[data-agent="weather"] a`), chromedp.WaitVisible(`#run-form input[name="city"]`))
	if v, _ := chromedp.Run(ctx, chromedp.Value(`#run-form input[name="city"]`)); v != "Oslo" {
		t.Errorf("the city field holds %q, want the Input's Oslo", v)
	}
	if s := text(`#tools`); !strings.Contains(s, "tool/weather") {
		t.Errorf("the tools: %q", s)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('details.edit, #save, #edit-prompt').length`)); n != 0 {
		t.Errorf("a Go agent has an editor (%d elements)", n)
	}
	if s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#agent-prompt') || {}).textContent || ''`)); s != "Tell the weather of {{city}}." {
		t.Errorf("the prompt shown: %q", s)
	}

	// Fill the form, run: turn 1 arrives while the model holds turn 2.
	do("fill and run", chromedp.SetValue(`#run-form input[name="city"]`, "Lisbon"), chromedp.Click(`#run`), chromedp.WaitVisible(`#cancel`))
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
	if s := text(`.live-turn[data-turn="1"]`); !strings.Contains(s, "tool/weather") || !strings.Contains(s, "token:") {
		t.Errorf("turn 1 lacks the tool call or the output: %q", s)
	}
	do("turn 2's reply shows as it is written", chromedp.WaitVisible(`.live-turn[data-turn="2"] .reply-text.live`))
	if s := text(`.live-turn[data-turn="2"]`); !strings.Contains(s, "Checking the forecast once more.") || !strings.Contains(s, "the model is writing") {
		t.Errorf("turn 2 does not show the reply being written: %q", s)
	}
	close(release)
	do("the run ends", chromedp.WaitVisible(`body[data-run-done]`), chromedp.WaitVisible(`#open-trace`))
	if s := text(`#run-summary`); !strings.Contains(s, "{:temp_c 6.0}") {
		t.Errorf("the outcome is not shown: %q", s)
	}
	if page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(page, secret) {
		t.Error("the firewalled value is on the run's page")
	}

	// The other Go agent's test cases.
	do("tests", chromedp.Navigate(origin+"/#/agent/team%2Fnotes"), chromedp.WaitVisible(`#run-tests`), chromedp.Click(`#run-tests`),
		chromedp.WaitVisible(`#tests tr.pass`), chromedp.WaitVisible(`#tests tr.fail`))
	if s := text(`#tests-summary`); !strings.Contains(s, "1 of 2 passed") {
		t.Errorf("the tests' summary: %q", s)
	}

	// The MCP agent: no tools known before a run; the button lists them,
	// starting its servers.
	do("the MCP agent", chromedp.Navigate(origin+"/#/agent/remote"), chromedp.WaitVisible(`#list-tools`))
	if s := text(`#list-tools`); s != "List tools (starts the MCP servers)" {
		t.Errorf("the button says %q", s)
	}
	if src.listed.Load() != 0 {
		t.Error("the page started the servers before the button was pressed")
	}
	do("list its tools", chromedp.Click(`#list-tools`), chromedp.WaitVisible(`#tools .tools-from`))
	if s := text(`#tools`); !strings.Contains(s, "tool/remote") || !strings.Contains(s, "tool/lookup") || src.listed.Load() != 1 {
		t.Errorf("the listed tools: %q (%d listings)", s, src.listed.Load())
	}
	// After a run, its tools come from the run.
	do("run it", chromedp.Click(`#run`), chromedp.WaitVisible(`body[data-run-done]`),
		chromedp.Navigate(origin+"/"), chromedp.Navigate(origin+"/#/agent/remote"), chromedp.WaitVisible(`#tools .tools-from a`))
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#list-tools').length`)); n != 0 {
		t.Error("the button is still there after a run")
	}

	pmu.Lock()
	defer pmu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
}
