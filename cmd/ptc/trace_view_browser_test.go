package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// browserTimeout bounds each run of the browser: a hung one fails the
// test instead of hanging it.
const browserTimeout = 90 * time.Second

// findBrowser returns the path of a Chromium-based browser, "" when there
// is none.
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser headless on the page with args, in a profile
// of its own, and returns its stdout.
func headless(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	profile, err := os.MkdirTemp(t.TempDir(), "profile")
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--user-data-dir=" + profile}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("%s did not finish within %s (hung?); stderr:\n%s", bin, browserTimeout, tail(stderr.String(), 2000))
	}
	if err != nil && stdout.Len() == 0 {
		t.Fatalf("%s %v: %v; stderr:\n%s", bin, args, err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestTraceViewBrowser opens the page of a trace with a nested agent in
// headless Chromium: the DOM after the script ran holds the turns, the
// nested agents' sections, the timeline and the highlighted programs, and
// a screenshot is not blank. Skipped when no Chromium is installed.
func TestTraceViewBrowser(t *testing.T) {
	bin := findBrowser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser test of ptc trace view is skipped (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("-short: the browser test is skipped")
	}
	dir := t.TempDir()
	path, _ := writeTestTrace(t, dir)
	page := filepath.Join(dir, "page.html")
	if code, _, errOut := ptcIn(t, testEnv(nil, nil), "trace", "view", path, "-o", page); code != 0 {
		t.Fatalf("ptc trace view: exit %d, %s", code, errOut)
	}

	dom := string(headless(t, bin, page, "--dump-dom"))
	if !strings.Contains(dom, `data-rendered="3"`) {
		t.Fatalf("the script did not render the three missions; DOM:\n%s", tail(dom, 4000))
	}
	for _, want := range []string{
		`id="m0-t1"`, `id="m0-t2"`, `id="m0-t3"`, `id="m0-t4"`, // the root's turns
		`id="m1-t1"`, `id="m2-t1"`, // each nested agent's turn
		`<h4>Agent square</h4>`,
		`<span class="tok-tool">tool/lookup</span>`, `<span class="tok-kw">:id</span>`,
		`<span class="tok-special">def</span>`, `<span class="tok-str">"looking up"</span>`,
		`<span class="tok-com">;; square it</span>`, `<span class="tok-num">2.5</span>`,
		`class="tl-bar k-agent"`, `class="tl-bar k-turn k-err"`, `href="#m0-t4-c0"`,
		"type_error", "looking up", "System prompt",
		"1 failed LLM attempt", "LLM attempts that failed", "the provider is overloaded",
		`<title>returned · trace.json · PTC trace</title>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM lacks %s", want)
		}
	}
	if n := len(regexp.MustCompile(`class="mission nested"`).FindAllString(dom, -1)); n != 2 {
		t.Errorf("%d nested agent sections, want 2", n)
	}
	// Every turn has its reply, collapsed; the turn without a program has
	// it under the note that says so, its copy of the secret hidden.
	if n := strings.Count(dom, `<details class="reply">`); n != 6 {
		t.Errorf("%d collapsed reply blocks, want 6 (4 turns, 2 nested agents' turns)", n)
	}
	noCode := regexp.MustCompile(`(?s)id="m0-t2".*?No program in the reply\.</p><details class="reply"><summary>Reply \(2 lines\)</summary><pre class="prompt">The note is in\.\nIts secret, &lt;Firewalled&gt;, is not for me`)
	if !noCode.MatchString(dom) {
		t.Errorf("turn 2 (no program) lacks its reply under the note; DOM:\n%s", tail(dom, 6000))
	}
	if strings.Contains(dom, traceSecret) {
		t.Errorf("the page shows the secret")
	}
	// The hostile value is text, not markup.
	if strings.Contains(dom, "<img") || strings.Count(dom, "<script") != 2 {
		t.Errorf("the hostile value became markup:\n%s", tail(dom, 4000))
	}
	if !strings.Contains(dom, "&lt;img src=x onerror=alert(2)&gt;") {
		t.Errorf("the hostile value is not shown as text")
	}

	shot := filepath.Join(dir, "shot.png")
	headless(t, bin, page, "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	counts := map[uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[(r>>12)<<8|(g>>12)<<4|bl>>12]++ // 4 bits a channel
		}
	}
	total, top := 0, 0
	for _, n := range counts {
		total += n
		top = max(top, n)
	}
	share := float64(total-top) / float64(total)
	t.Logf("screenshot %dx%d: %d colours, %.0f%% of the pixels not the background", b.Dx(), b.Dy(), len(counts), share*100)
	if len(counts) < 12 {
		t.Errorf("the screenshot has %d colours: blank?", len(counts))
	}
	if share < 0.03 {
		t.Errorf("only %.1f%% of the screenshot differs from the background: blank?", share*100)
	}
}
