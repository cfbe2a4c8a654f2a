package traceview

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
)

//go:embed page.html style.css lib.js app.js
var files embed.FS

// Lib is the page's helpers (lib.js), which other pages may load first.
func Lib() []byte { return mustRead("lib.js") }

// Style is the page's style sheet (style.css).
func Style() []byte { return mustRead("style.css") }

func mustRead(name string) []byte {
	b, _ := files.ReadFile(name) // embedded: it is there
	return b
}

// IsRaw reports whether a trace was written raw ("redacted": false or
// absent): it holds what its mission firewalled.
func IsRaw(data []byte) bool {
	var head struct {
		Redacted *bool `json:"redacted"`
	}
	return json.Unmarshal(data, &head) != nil || head.Redacted == nil || !*head.Redacted
}

// WriteHTML writes the page that shows a trace (with a banner that says
// so when the trace is raw): the template with the style and script
// inline and the trace's JSON in a <script type="application/json">
// element, escaped so that nothing in it can end the element (every <,
// > and & is a \u escape).
func WriteHTML(w io.Writer, traceJSON []byte, title string) error {
	tmpl, css, lib, js := string(mustRead("page.html")), string(Style()), string(Lib()), string(mustRead("app.js"))
	if strings.Contains(strings.ToLower(css), "</style") || strings.Contains(strings.ToLower(lib+js), "</script") {
		return errors.New("the page's style or script would end its element")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, traceJSON); err != nil {
		return fmt.Errorf("the trace is not JSON: %w", err)
	}
	var data bytes.Buffer
	json.HTMLEscape(&data, compact.Bytes())
	banner := ""
	if IsRaw(traceJSON) {
		banner = `<p class="note error unredacted" role="alert">This page shows unredacted values: the trace was written raw, ` +
			`with the data the mission firewalled. Keep it to yourself: do not mail it, attach it or share it.</p>` + "\n"
	}
	page := strings.NewReplacer(
		"{{BANNER}}", banner,
		"{{TITLE}}", html.EscapeString(title),
		"{{STYLE}}", css,
		"{{SCRIPT}}", lib+"\n"+js,
		"{{DATA}}", data.String(),
	).Replace(tmpl)
	_, err := io.WriteString(w, page)
	return err
}
