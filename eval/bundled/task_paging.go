package bundled

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, pagingTask) }

// pagingEvent is a row of the events tool.
type pagingEvent struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	User  string `json:"user"`
	Bytes int    `json:"bytes"`
	At    string `json:"at"`
}

// pagingEvents returns the 47 events the events tool pages over, in time
// order.
func pagingEvents() []pagingEvent {
	s := lcg(314)
	kinds := []string{"login", "export", "export", "delete", "share"}
	users := []string{"ana", "ben", "caro", "dmitri", "eve", "femi"}
	out := make([]pagingEvent, 47)
	for i := range out {
		out[i] = pagingEvent{
			ID:    "EV-" + pad(5000+i*3, 5),
			Kind:  pick(&s, kinds),
			User:  pick(&s, users),
			Bytes: 100 + s.intn(90000),
			At:    fmt.Sprintf("2024-03-%s %s:%s", pad(1+i/2, 2), pad(s.intn(24), 2), pad(s.intn(60), 2)),
		}
	}
	return out
}

const pagingPageSize = 10

// pagingTask: pagination with a cursor. The reference fetches one page a
// turn and keeps what it has read in memory (def), as a model does when it
// is told to look at each page; a loop in one program would do too.
func pagingTask(context.Context) (Task, func() error, error) {
	events := pagingEvents()
	eventsTool := agent.Tool{
		Signature:   "(cursor :string?) -> {items [{id :string, kind :string, user :string, bytes :int, at :string}], next_cursor :string?}",
		Description: "Returns one page of the audit log, oldest first. Omit cursor for the first page; pass the previous page's next_cursor for the next one (the last page has none).",
		Func: func(_ context.Context, args *lisp.Map) (any, error) {
			from := 0
			if c := argString(args, "cursor"); c != "" {
				n, err := strconv.ParseInt(strings.TrimPrefix(c, "pg-"), 36, 64)
				if err != nil || !strings.HasPrefix(c, "pg-") || n%7 != 3 || int(n/7) > len(events) {
					return nil, fmt.Errorf("invalid cursor %q: pass next_cursor from the previous page", c)
				}
				from = int(n / 7)
			}
			to := min(from+pagingPageSize, len(events))
			page := map[string]any{"items": events[from:to], "next_cursor": nil}
			if to < len(events) {
				page["next_cursor"] = "pg-" + strconv.FormatInt(int64(to*7+3), 36)
			}
			return page, nil
		},
	}
	expect := func(kind string) map[string]any {
		n, bytes, last := 0, 0, ""
		users := map[string]bool{}
		for _, e := range events {
			if e.Kind == kind {
				n++
				bytes += e.Bytes
				last = e.ID
				users[e.User] = true
			}
		}
		return map[string]any{"count": n, "bytes": bytes, "last_id": last, "users": sortedKeys(users)}
	}
	mk := func(kind string) eval.Case {
		return eval.Case{Name: kind, Input: map[string]any{"kind": kind}, Checks: []eval.Check{eval.Equals(expect(kind))}}
	}
	const prompt = "The events tool pages through the audit log. Over the whole log, count the events of kind {{kind}}, sum their bytes, give the id of the latest one, and the users who did them (each once, sorted)."
	t := Task{
		Task: eval.Task{
			Name:        "paging-audit-log",
			Description: "pagination with a cursor over five pages, progress kept in memory across turns",
			Tags:        []string{"pagination", "memory", "multi-turn", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(kind :string) -> {count :int, bytes :int, last_id :string, users [:string]}",
				Tools:     map[string]agent.Tool{"events": eventsTool},
				MaxTurns:  8,
			},
			Cases: []eval.Case{mk("export"), mk("delete"), mk("share")},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "The events tool pages through the audit log.") {
				return "", false
			}
			if req.Turn == 1 {
				return program(`
(def page (tool/events {}))
(def seen (:items page))
(def cursor (:next_cursor page))
(println "read" (count seen) "events; next cursor:" cursor)`), true
			}
			return program(`
(def page (tool/events {:cursor cursor}))
(def seen (into seen (:items page)))
(def cursor (:next_cursor page))
(if cursor
  (println "read" (count seen) "events; next cursor:" cursor)
  (let [mine (filter (where :kind = ctx/kind) seen)]
    (return {:count (count mine) :bytes (sum-by :bytes mine)
             :last_id (:id (last mine)) :users (sort (distinct (map :user mine)))})))`), true
		},
		Decoys: []string{
			// the first page taken for the whole log
			`(let [mine (filter (where :kind = ctx/kind) (:items (tool/events {})))] (return {:count (count mine) :bytes (sum-by :bytes mine) :last_id (:id (last mine)) :users (sort (distinct (map :user mine)))}))`,
			// two pages, then stopped
			`(let [p1 (tool/events {}) p2 (tool/events {:cursor (:next_cursor p1)}) mine (filter (where :kind = ctx/kind) (concat (:items p1) (:items p2)))] (return {:count (count mine) :bytes (sum-by :bytes mine) :last_id (:id (last mine)) :users (sort (distinct (map :user mine)))}))`,
		},
	}
	return t, nil, nil
}
