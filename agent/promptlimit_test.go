package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/agent/prompt"
	"github.com/ptc-go/ptc/internal/demo"
	"github.com/ptc-go/ptc/lisp"
)

// The figures behind the PromptLimit defaults (docs/deviations.md,
// "Defaults weighed against the seeds"): the size of the system prompt and
// what its data inventory shows of realistic contexts, under the seeds'
// limits (5 items, 1,000 characters), now the defaults, and under the 3
// items and 200 characters ptc-go had before. The contexts are the
// examples' and the shapes agents get in practice: rows of a database or
// an API, MCP tool results, long text. Everything is made here, so the
// figures are deterministic; go test -run TestPromptLimitFigures -v
// ./agent/ prints the table.

// plCase is an agent and a context whose system prompt is measured.
type plCase struct {
	name string
	cfg  agent.Config
	ctx  map[string]any
	// entry is the context entry whose sample is measured ("" for none);
	// text is the long text of its first row ("" for none).
	entry, text string
	// facts are the informative parts of the entry's rows, one a row:
	// what the model needs to see to understand the data.
	facts []plFact
}

// plFact is an informative part of a row, in its long text (in) or in a
// field of its own (in "").
type plFact struct{ text, in string }

// reached reports whether a string cut to chars characters shows the
// fact whole.
func (f plFact) reached(chars int) bool {
	i := strings.Index(f.in, f.text)
	return i >= 0 && utf8.RuneCountInString(f.in[:i+len(f.text)]) <= chars
}

// plFig are the figures of one case under one PromptLimit.
type plFig struct {
	sys, data int // tokens (bytes/4) of the system prompt and of its data section
	// whole and begun count the rows of the entry's sample shown
	// complete and shown at all.
	whole, begun int
	// text is how many characters of the first row's long text the
	// sample shows, of textLen.
	text, textLen int
	// seen counts the facts the sample shows; reached those that the
	// string limit alone would let through (in the first StringChars
	// characters of their text), wherever their row is.
	seen, reached int
}

// The limits weighed: ptc-go's former defaults and the seeds'.
var (
	plSmall = prompt.Options{InputItems: 3, InputChars: 200}
	plSeed  = prompt.Options{InputItems: 5, InputChars: 1000}
)

func plTokens(s string) int { return (len(s) + 3) / 4 }

// measure previews the case's system prompt under limit.
func (c plCase) measure(t testing.TB, limit prompt.Options) plFig {
	t.Helper()
	cfg := c.cfg
	cfg.Presentation = limit
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Preview(agent.Options{Input: c.ctx})
	if err != nil {
		t.Fatal(err)
	}
	f := plFig{sys: plTokens(p.System), data: plTokens(plDataSection(p.System))}
	if c.entry == "" {
		return f
	}
	sample := plSample(t, p.System, c.entry)
	f.whole, f.begun = plCountRows(sample)
	if c.text != "" {
		f.text, f.textLen = plShownPrefix(sample, c.text), utf8.RuneCountInString(c.text)
	}
	chars := a.Config().Presentation.InputChars
	for _, fact := range c.facts {
		if strings.Contains(sample, strings.Trim(lisp.Print(fact.text, lisp.PrintOptions{}), `"`)) {
			f.seen++
		}
		if fact.in == "" || fact.reached(chars) {
			f.reached++
		}
	}
	return f
}

// plDataSection is the "## Data" section of a system prompt.
func plDataSection(system string) string {
	i := strings.Index(system, "## Data\n")
	if i < 0 {
		return ""
	}
	rest := system[i:]
	if j := strings.Index(rest[1:], "\n## "); j >= 0 {
		return rest[:j+1]
	}
	return rest
}

// plSample is the sample line of a context entry in the inventory.
func plSample(t testing.TB, system, entry string) string {
	t.Helper()
	lines := strings.Split(plDataSection(system), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "ctx/"+entry+" ") && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	t.Fatalf("no sample of ctx/%s in\n%s", entry, system)
	return ""
}

// plCountRows counts the elements of the first vector of a printed sample
// (at any depth), complete and begun: a sample cut at its length limit
// ends inside an element.
func plCountRows(sample string) (whole, begun int) {
	depth, vec := 0, -1
	inStr, esc := false, false
	for i := 0; i < len(sample); i++ {
		c := sample[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if vec >= 0 && depth == vec {
					whole++ // a string element
					begun++
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			depth++
			if c == '[' && vec < 0 {
				vec = depth
			} else if vec >= 0 && depth == vec+1 {
				begun++
			}
		case ']', '}':
			if vec >= 0 && depth == vec+1 {
				whole++
			}
			if vec >= 0 && depth == vec {
				return whole, begun
			}
			depth--
		}
	}
	return whole, begun
}

// plShownPrefix is the length, in characters, of the longest prefix of s
// that the sample shows as a string.
func plShownPrefix(sample, s string) int {
	runes := []rune(s)
	shows := func(n int) bool {
		lit := lisp.Print(string(runes[:n]), lisp.PrintOptions{})
		return strings.Contains(sample, strings.TrimSuffix(lit, `"`))
	}
	lo, hi := 0, len(runes) // shows(lo) holds
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if shows(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// --- The contexts ---

func plCases(t testing.TB) []plCase {
	return []plCase{
		plDemoCase(),
		plDrafterCase(),
		plTicketsCase(),
		plDigestCase(t),
		plBenchOrdersCase(),
		plIssuesCase(false),
		plIssuesCase(true),
		plMCPTextCase(),
		plEmailsCase(),
		plArticlesCase(),
	}
}

// plDemoCase is examples/agent: the context is one number.
func plDemoCase() plCase {
	return plCase{name: "examples/agent (demo)", cfg: demo.Config(), ctx: demo.Context()}
}

// plDrafterCase is the drafter of examples/orchestrator: its context is the
// orchestrator's value.
func plDrafterCase() plCase {
	refunds := []map[string]any{
		{"ticket": 101, "refundable": true, "amount": 89.90, "reason": "within policy"},
		{"ticket": 103, "refundable": false, "amount": 120.00, "reason": "outside the 30-day window"},
		{"ticket": 105, "refundable": false, "amount": 649.00, "reason": "over 500, a manager must approve"},
		{"ticket": 108, "refundable": true, "amount": 34.50, "reason": "within policy"},
	}
	return plCase{name: "examples/orchestrator (drafter)",
		cfg: agent.Config{Prompt: "Draft a one-line reply for each refund decision.",
			Signature: "{replies [{ticket :int, text :string}]}", MaxTurns: 1},
		ctx:   map[string]any{"urgent": []int{101, 105, 108}, "refunds": refunds},
		entry: "refunds"}
}

// plTicketsCase is the ticket desk of examples/orchestrator given its
// tickets as context: rows with a chat transcript, where the order number
// comes in the customer's second message.
func plTicketsCase() plCase {
	subjects := []string{"Refund for a damaged blender", "Where is my parcel?", "Refund request: wrong size",
		"Password reset does not work", "Refund still not received", "Invoice copy for March",
		"Refund for a late delivery", "Charged twice, please refund", "Parcel arrived late, refund the shipping?"}
	emails := []string{"dana.whitfield@example.com", "omar.haddad@example.com", "li.wei.shop@example.com",
		"p.okafor@example.com", "greta.lind@example.com", "accounts@initech.example", "sam.ortiz@example.com",
		"nadia.k@example.com", "tom.becker@example.com"}
	var rows []map[string]any
	for i, s := range subjects {
		id, order := 101+i, 1001+i
		rows = append(rows, map[string]any{"id": id, "subject": s, "status": []string{"open", "closed"}[i%3/2],
			"order_id": order, "_customer_email": emails[i],
			"transcript": fmt.Sprintf("[T-%[1]d 09:14] customer: %[2]s.\n"+
				"[T-%[1]d 09:15] agent: Thanks for writing in. Could you share your order number?\n"+
				"[T-%[1]d 09:21] customer: It is order %[3]d. I attached photos of the box and the receipt.\n"+
				"[T-%[1]d 11:05] agent: We will get back to you by email as soon as we can.", id, s, order)})
	}
	return plCase{name: "support tickets with transcripts (examples/orchestrator's data)",
		cfg: agent.Config{Prompt: "Find the open support tickets about {{topic}}.",
			Signature: "(topic :string) -> {tickets [{id :int, subject :string, order_id :int}], _emails [:string]}"},
		ctx:   map[string]any{"topic": "refund", "tickets": rows},
		entry: "tickets", text: rows[0]["transcript"].(string),
		facts: plFactsOf(rows, "transcript", func(r map[string]any) string { return fmt.Sprintf("It is order %d.", r["order_id"]) })}
}

// plDigestCase is examples/agents/digest.md with its articles.json.
func plDigestCase(t testing.TB) plCase {
	data, err := os.ReadFile("../examples/agents/articles.json")
	if err != nil {
		t.Fatal(err)
	}
	var ctx map[string]any
	if err := json.Unmarshal(data, &ctx); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, a := range ctx["articles"].([]any) {
		rows = append(rows, a.(map[string]any))
	}
	return plCase{name: "examples/agents/digest.md (articles.json)",
		cfg: agent.Config{
			Prompt: "Write a digest of the articles about {{topic}} in ctx/articles.",
			Signature: "(topic :string, articles [{title :string, source :string, body :string}]) -> " +
				"{count :int, sources [:string], digest :string}",
			MaxTurns:     4,
			Presentation: prompt.Options{Suffix: "Keep the digest under 80 words, in plain sentences."},
		},
		ctx: ctx, entry: "articles", text: rows[0]["body"].(string), facts: plFactsOf(rows, "body", plFirstSentence("body"))}
}

// plBenchOrdersCase is the interpreter's benchmark context
// (shared/bench/orders.json): 10,000 small rows, made by its formula.
func plBenchOrdersCase() plCase {
	rows := make([]map[string]any, 10_000)
	for id := range rows {
		rows[id] = map[string]any{"id": id, "amount": id * 37 % 500,
			"status": []string{"open", "closed", "pending"}[id%3], "customer": fmt.Sprint("c", id%100)}
	}
	return plCase{name: "bench orders.json (10,000 rows of 4 fields)",
		cfg: agent.Config{Prompt: "Which five customers spent the most on closed orders?",
			Signature: "{top [{customer :string, total :int}]}"},
		ctx: map[string]any{"orders": rows}, entry: "orders"}
}

// plIssuesCase is a GitHub issue search as an MCP server returns it: the
// REST API's issues (26 fields, nested users, labels and reactions), or
// trimmed to 10 fields as some servers do.
func plIssuesCase(trimmed bool) plCase {
	titles := []string{"Panic when the config file is empty", "Support for ARM64 builds",
		"Docs: the quick start misses a step", "Timeouts are not retried", "Add a --json flag"}
	parts := []string{"sync", "the installer", "the plugin API", "the TUI", "remote mode", "the cache"}
	var rows []any
	var measured []map[string]any
	for i := range 30 {
		n := 4812 - i*7
		title := titles[i%len(titles)] + " in " + parts[i/len(titles)]
		login := []string{"mlopez", "kchen", "abrahms", "tdubois"}[i%4]
		body := plIssueBody(i)
		base := fmt.Sprintf("https://api.github.com/repos/acme/widget/issues/%d", n)
		var row map[string]any
		if trimmed {
			row = map[string]any{"number": n, "title": title, "state": "open", "user": login,
				"labels": []string{"bug", "needs-triage"}[:1+i%2], "comments": i % 9,
				"created_at": fmt.Sprintf("2025-03-%02dT10:%02d:00Z", 28-i%27, i), "updated_at": "2025-04-01T08:00:00Z",
				"html_url": fmt.Sprintf("https://github.com/acme/widget/issues/%d", n), "body": body}
		} else {
			user := map[string]any{"login": login, "id": 100200 + i%4, "node_id": "MDQ6VXNlcjEwMDIw",
				"avatar_url": "https://avatars.githubusercontent.com/u/100200?v=4", "url": "https://api.github.com/users/" + login,
				"html_url": "https://github.com/" + login, "type": "User", "site_admin": false}
			row = map[string]any{"url": base, "repository_url": "https://api.github.com/repos/acme/widget",
				"labels_url": base + "/labels{/name}", "comments_url": base + "/comments", "events_url": base + "/events",
				"html_url": fmt.Sprintf("https://github.com/acme/widget/issues/%d", n), "id": 2900000000 + n,
				"node_id": fmt.Sprintf("I_kwDOAbCdEf5x%04d", n), "number": n, "title": title, "user": user,
				"labels": []map[string]any{{"id": 5001, "name": "bug", "color": "d73a4a", "default": true}},
				"state":  "open", "locked": false, "assignee": nil, "assignees": []any{}, "milestone": nil,
				"comments": i % 9, "created_at": fmt.Sprintf("2025-03-%02dT10:%02d:00Z", 28-i%27, i),
				"updated_at": "2025-04-01T08:00:00Z", "closed_at": nil, "author_association": "NONE",
				"body": body, "reactions": map[string]any{"url": base + "/reactions", "total_count": i % 3, "+1": i % 3},
				"timeline_url": base + "/timeline", "state_reason": nil}
		}
		rows = append(rows, row)
		measured = append(measured, row)
	}
	name, prompt := "GitHub issue search, REST API shape (26 fields)", "Which open issues are bugs about timeouts?"
	if trimmed {
		name = "GitHub issue search, trimmed (10 fields)"
	}
	return plCase{name: name, cfg: agent.Config{Prompt: prompt, Signature: "{numbers [:int]}"},
		ctx:   map[string]any{"issues": map[string]any{"total_count": 30, "incomplete_results": false, "items": rows}},
		entry: "issues", text: measured[0]["body"].(string),
		facts: plFactsOf(measured, "", func(r map[string]any) string { return r["title"].(string) })}
}

// plIssueBody is an issue's Markdown body, the way templates make them.
func plIssueBody(i int) string {
	return fmt.Sprintf("### Describe the bug\n\nRunning `widget sync` against a fresh checkout %s.\n\n"+
		"### Steps to reproduce\n\n1. Create an empty `widget.toml`\n2. Run `widget sync --verbose`\n3. See the error\n\n"+
		"### Expected behavior\n\nThe command should fall back to the defaults and print a warning.\n\n"+
		"### Environment\n\n- OS: %s\n- widget version: 2.%d.1\n- Go version: 1.24\n\n"+
		"### Additional context\n\nThis started after upgrading from 2.%d.0; the changelog does not mention it.",
		[]string{"panics with a nil map", "hangs for minutes", "exits with status 2"}[i%3],
		[]string{"Ubuntu 24.04", "macOS 15.3", "Windows 11"}[i%3], 3+i%4, 2+i%4)
}

// plMCPTextCase is an MCP tool's result whose content is JSON text (as
// servers without structured content return it): 25 CRM records.
func plMCPTextCase() plCase {
	var recs []map[string]any
	for i := range 25 {
		recs = append(recs, map[string]any{"account_id": fmt.Sprintf("ACC-%05d", 31000+i*13),
			"name":  []string{"Northwind Traders", "Contoso Ltd", "Fabrikam Inc", "Adventure Works", "Tailspin Toys"}[i%5],
			"owner": []string{"j.silva", "m.ng", "r.patel"}[i%3], "stage": []string{"prospect", "trial", "customer", "churned"}[i%4],
			"arr_eur": 12000 + i*850, "renewal": fmt.Sprintf("2025-%02d-15", 1+i%12)})
	}
	text, _ := json.Marshal(recs)
	row := map[string]any{"type": "text", "text": string(text)}
	// The facts are the records, whole.
	var facts []plFact
	for _, r := range recs {
		one, _ := json.Marshal(r)
		facts = append(facts, plFact{text: string(one), in: string(text)})
	}
	return plCase{name: "MCP result with JSON text content (25 records, 3.1 KB)",
		cfg:   agent.Config{Prompt: "Total the ARR of the accounts in trial.", Signature: "{arr :int}"},
		ctx:   map[string]any{"result": map[string]any{"content": []any{row}, "isError": false}},
		entry: "result", text: string(text), facts: facts}
}

// plEmailsCase is a mailbox: 40 emails whose bodies open with a greeting
// and a pleasantry, the way people write, before the request and its
// order number or amount.
func plEmailsCase() plCase {
	people := []string{"Maria Gonzalez", "Tom Becker", "Aiko Tanaka", "Samuel Okafor", "Lena Novak"}
	openers := []string{
		"Hi team,\n\nI hope this finds you well, and thanks again for the quick help last month.",
		"Hello,\n\nSorry to bother you again on a Friday, I know it is a busy time of the year for you.",
		"Dear support,\n\nI have been a customer for several years and have always been happy with the service, which is why I am a bit surprised to write this.",
		"Good morning,\n\nI tried the chat first but nobody answered, so I am writing here instead.",
	}
	asks := []string{
		"My order #%d arrived with the lid cracked, and I would like a replacement rather than a refund.",
		"I was charged %d EUR twice for the same order, once on the 3rd and once on the 5th.",
		"Could you change the delivery address of order #%d to our new office before it ships?",
		"The invoice for order #%d shows the wrong VAT number; we need a corrected copy for our accounts.",
	}
	closer := "\n\nI have attached the photos and the confirmation email. Let me know if you need anything else from me; " +
		"I am available by phone most afternoons this week, and my colleague can also sign for a delivery.\n\n" +
		"Thanks in advance and kind regards,\n%s\n--\nSent from my phone, please excuse typos."
	var rows []map[string]any
	for i := range 40 {
		n := 20417 + i*31
		ask := fmt.Sprintf(asks[i%len(asks)], n)
		if i%len(asks) == 1 {
			ask = fmt.Sprintf(asks[1], 40+i*3)
		}
		who := people[i%len(people)]
		rows = append(rows, map[string]any{"id": fmt.Sprintf("msg-%04d", i), "from": strings.ToLower(strings.ReplaceAll(who, " ", ".")) + "@example.com",
			"to": "support@shop.example", "subject": []string{"Problem with my order", "Double charge", "Change of address", "Invoice"}[i%4],
			"date": fmt.Sprintf("2025-05-%02dT%02d:12:00Z", 1+i%28, 8+i%10), "labels": []string{"inbox", "unread"}[:1+i%2],
			"body": openers[i%len(openers)] + " " + ask + fmt.Sprintf(closer, who), "ask": ask})
	}
	ctxRows := make([]map[string]any, len(rows))
	for i, r := range rows {
		c := map[string]any{}
		for k, v := range r {
			if k != "ask" {
				c[k] = v
			}
		}
		ctxRows[i] = c
	}
	return plCase{name: "mailbox (40 emails, bodies of 470-540 chars)",
		cfg: agent.Config{Prompt: "List the emails that ask for a refund or a replacement, with their order numbers.",
			Signature: "{requests [{id :string, order :int}]}"},
		ctx: map[string]any{"emails": ctxRows}, entry: "emails", text: rows[0]["body"].(string),
		facts: plFactsOf(rows, "body", func(r map[string]any) string { return r["ask"].(string) })}
}

// plArticlesCase is a news feed: 8 articles of 2.7 to 4.0 KB, each with
// its key facts in its first sentence, as news is written.
func plArticlesCase() plCase {
	ledes := []string{
		"The city council approved on Tuesday a plan to replace the diesel buses of its public transport network with electric ones by 2030, at a cost of 240 million euros spread over six years.",
		"The regional rail operator will raise its fares by 4.5 percent from the first of July, its second increase in a year, blaming the price of electricity and the wages agreed with the unions in March.",
		"A fire in a recycling plant on the eastern edge of the city was brought under control overnight after burning for eleven hours; nobody was hurt.",
		"The university hospital has opened a second emergency department in the northern districts, which will take up to 90 patients a day and cut the average waiting time by half, according to its director.",
		"Shares of the city's largest employer, a maker of industrial pumps, fell by 12 percent on Wednesday after it cut its sales forecast for the year and announced that it would close one of its three factories.",
		"The heat wave that has gripped the region since Sunday is expected to last until the end of the week, with temperatures of up to 38 degrees, and the authorities have opened cooling rooms in eleven libraries.",
		"Voters in the southern district elected a new mayor on Sunday in a run-off that was decided by 214 votes, the narrowest margin in the history of the district, and the losing candidate has asked for a recount.",
		"The port authority has signed a contract worth 85 million euros with a Dutch company to deepen the main channel, so that container ships of up to 400 metres can dock without waiting for the tide.",
	}
	paras := []string{
		"The plan, which passed with 31 votes to 12, foresees the purchase of 180 vehicles and the conversion of two depots, where chargers will be installed along with a battery storage system that can supply the fleet during peak hours.",
		"Opponents argued that the budget leaves no room for the extension of the tram line to the northern districts, which had been promised during the last campaign, and that the cost of the batteries is likely to rise.",
		"The authority said that the first changes will be visible by the end of next year, and that the timetable will not change during the transition.",
		"Residents of the streets nearby have asked for a study of the noise at night; the council replied that the new equipment is quieter than what is there today.",
		"Similar programmes in other cities of the region have run over budget by ten to twenty percent, according to a report published in March by the national audit office, mostly because of delays in the grid connection.",
		"The mayor described the decision as a turning point and said the savings would pay for a third of the investment, a figure the opposition disputes.",
		"Unions welcomed the decision but asked for training to be organised during working hours, and for the night shifts to be staffed with at least two people.",
	}
	var rows []map[string]any
	for i, lede := range ledes {
		body := []string{lede}
		for j := range 14 + i {
			body = append(body, paras[(i+j)%len(paras)])
		}
		rows = append(rows, map[string]any{"title": fmt.Sprintf("Local news %d", i+1),
			"url": fmt.Sprintf("https://news.example/city/2025/04/%02d/story", i+1), "author": "Staff reporter",
			"published": fmt.Sprintf("2025-04-%02dT07:30:00Z", i+1), "body": strings.Join(body, "\n\n")})
	}
	return plCase{name: "news feed (8 articles of 2.7-4.0 KB)",
		cfg: agent.Config{Prompt: "Summarize today's local news in five sentences.", Signature: "{summary :string}"},
		ctx: map[string]any{"articles": rows}, entry: "articles", text: rows[0]["body"].(string),
		facts: plFactsOf(rows, "body", plFirstSentence("body"))}
}

// plFactsOf returns the fact of each row, in its field in ("" for none).
func plFactsOf(rows []map[string]any, in string, fact func(map[string]any) string) []plFact {
	var out []plFact
	for _, r := range rows {
		f := plFact{text: fact(r)}
		if in != "" {
			f.in = r[in].(string)
		}
		out = append(out, f)
	}
	return out
}

// plFirstSentence is a row's field up to its first full stop.
func plFirstSentence(field string) func(map[string]any) string {
	return func(r map[string]any) string {
		s := r[field].(string)
		for i := 0; i+1 < len(s); i++ {
			if s[i] == '.' && (s[i+1] == ' ' || s[i+1] == '\n') {
				return s[:i+1]
			}
		}
		return s
	}
}

// plTable renders the figures as docs/deviations.md shows them.
func plTable(t testing.TB, cases []plCase, limits []prompt.Options) string {
	var sb strings.Builder
	sb.WriteString("| context |")
	for _, l := range limits {
		fmt.Fprintf(&sb, " %d/%d |", l.InputItems, l.InputChars)
	}
	sb.WriteString("\n|---|")
	sb.WriteString(strings.Repeat("---|", len(limits)))
	sb.WriteString("\n")
	for _, c := range cases {
		sb.WriteString("| " + c.name + " |")
		for _, l := range limits {
			f := c.measure(t, l)
			parts := []string{fmt.Sprintf("%d (%d)", f.sys, f.data)}
			if c.entry != "" {
				parts = append(parts, fmt.Sprintf("rows %d/%d", f.whole, f.begun))
			}
			if f.textLen > 0 {
				parts = append(parts, fmt.Sprintf("text %d/%d", f.text, f.textLen))
			}
			if len(c.facts) > 0 {
				parts = append(parts, fmt.Sprintf("facts %d, %d/%d", f.seen, f.reached, len(c.facts)))
			}
			sb.WriteString(" " + strings.Join(parts, "; ") + " |")
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestPromptLimitFigures computes the figures of docs/deviations.md
// ("Defaults weighed against the seeds") and pins the ones that depend on
// the inventory alone, under 3/200 and under the defaults (the seeds'
// 5/1000): a change to the sampler or to the defaults shows here (update
// the document with the table -v prints). The whole system prompt is
// pinned for one representative context.
func TestPromptLimitFigures(t *testing.T) {
	cases := plCases(t)
	t.Logf("tokens (bytes/4) of the system prompt (of its data section); rows of the sample whole/begun; "+
		"characters of the first row's text shown/all; facts seen, reached by the string limit/all:\n%s",
		plTable(t, cases, []prompt.Options{plSmall, plSeed, {InputItems: 5, InputChars: 200}, {InputItems: 3, InputChars: 1000}}))

	// {data, whole, begun, text, textLen, seen, reached} under 3/200 and
	// under the defaults.
	want := map[string][2]plFig{
		"examples/agent (demo)":           {{data: 32}, {data: 32}},
		"examples/orchestrator (drafter)": {{data: 130, whole: 3, begun: 3}, {data: 146, whole: 4, begun: 4}},
		"support tickets with transcripts (examples/orchestrator's data)": {
			{data: 143, whole: 0, begun: 1, text: 161, textLen: 293, seen: 0, reached: 9},
			{sys: 1248, data: 343, whole: 2, begun: 3, text: 293, textLen: 293, seen: 2, reached: 9}},
		"examples/agents/digest.md (articles.json)": {
			{data: 132, whole: 1, begun: 2, text: 125, textLen: 125, seen: 2, reached: 4},
			{data: 234, whole: 4, begun: 4, text: 125, textLen: 125, seen: 4, reached: 4}},
		"bench orders.json (10,000 rows of 4 fields)": {{data: 98, whole: 3, begun: 3}, {data: 127, whole: 5, begun: 5}},
		"GitHub issue search, REST API shape (26 fields)": {
			{data: 124, whole: 0, begun: 1, text: 181, textLen: 468, seen: 0, reached: 30},
			{data: 324, whole: 1, begun: 2, text: 468, textLen: 468, seen: 0, reached: 30}},
		"GitHub issue search, trimmed (10 fields)": {
			{data: 163, whole: 0, begun: 1, text: 200, textLen: 468, seen: 0, reached: 30},
			{data: 363, whole: 1, begun: 2, text: 468, textLen: 468, seen: 1, reached: 30}},
		"MCP result with JSON text content (25 records, 3.1 KB)": {
			{data: 121, whole: 1, begun: 1, text: 200, textLen: 3118, seen: 1, reached: 1},
			{data: 323, whole: 0, begun: 1, text: 916, textLen: 3118, seen: 7, reached: 8}},
		"mailbox (40 emails, bodies of 470-540 chars)": {
			{data: 136, whole: 0, begun: 1, text: 200, textLen: 481, seen: 1, reached: 30},
			{data: 336, whole: 1, begun: 2, text: 481, textLen: 481, seen: 2, reached: 40}},
		"news feed (8 articles of 2.7-4.0 KB)": {
			{data: 130, whole: 0, begun: 1, text: 200, textLen: 2731, seen: 1, reached: 5},
			{data: 330, whole: 0, begun: 1, text: 1000, textLen: 2731, seen: 1, reached: 8}},
	}
	if len(want) != len(cases) {
		t.Fatalf("%d cases, %d pinned", len(cases), len(want))
	}
	for _, c := range cases {
		w, ok := want[c.name]
		if !ok {
			t.Errorf("%s: not pinned", c.name)
			continue
		}
		for i, limit := range []prompt.Options{plSmall, {}} {
			got := c.measure(t, limit)
			if w[i].sys == 0 {
				got.sys = 0 // the rest of the prompt is the goldens' business
			}
			if got != w[i] {
				t.Errorf("%s, PromptLimit %+v:\n got %+v\nwant %+v", c.name, limit, got, w[i])
			}
		}
	}
	// The defaults are the seeds' limits, and Config says so.
	if got := agent.MustNew(agent.Config{Prompt: "p"}).Config().Presentation; got.InputItems != plSeed.InputItems || got.InputChars != plSeed.InputChars || got.SystemMaxChars != 0 {
		t.Errorf("Config().Presentation = %+v, want %+v", got, plSeed)
	}
}
