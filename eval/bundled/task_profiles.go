package bundled

import (
	"context"
	"fmt"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, profilesTask) }

// profilesData are nested JSON documents, with fields missing at every
// level: no address, an address without a city, no settings, settings
// without notifications.
func profilesData() map[string]map[string]any {
	s := lcg(3)
	cities := []string{"Oslo", "Porto", "Quito", "Riga"}
	out := map[string]map[string]any{}
	for i := range 24 {
		id := "U" + pad(40+i*2, 3)
		user := map[string]any{"name": "user " + itoa(i)}
		switch s.intn(4) {
		case 0: // no address
		case 1:
			user["address"] = map[string]any{"street": "Main " + itoa(i)}
		default:
			user["address"] = map[string]any{"street": "Main " + itoa(i), "city": pick(&s, cities)}
		}
		doc := map[string]any{"id": id, "user": user, "city": "HQ"} // a top-level city: the office's, not the user's
		switch s.intn(4) {
		case 0: // no settings
		case 1:
			doc["settings"] = map[string]any{"theme": "dark"}
		default:
			doc["settings"] = map[string]any{"notifications": map[string]any{"newsletter": s.intn(2) == 0, "sms": s.intn(2) == 0}}
		}
		out[id] = doc
	}
	return out
}

// profilesTask: extraction from nested JSON with get-in paths, nil-safe
// when a level is missing.
func profilesTask(context.Context) (Task, func() error, error) {
	docs := profilesData()
	tool := agent.Tool{
		Signature:   "(id :string) -> :map",
		Description: "Returns a user's profile document, as stored (nested JSON; fields may be missing).",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			id := argString(args, "id")
			d, ok := docs[id]
			if !ok {
				return nil, fmt.Errorf("no profile %q", id)
			}
			return d, nil
		},
	}
	dig := func(m map[string]any, path ...string) any {
		var v any = m
		for _, k := range path {
			mm, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = mm[k]
		}
		return v
	}
	expect := func(ids []string) []map[string]any {
		var out []map[string]any
		for _, id := range ids {
			d := docs[id]
			out = append(out, map[string]any{"id": id, "city": dig(d, "user", "address", "city"), "newsletter": dig(d, "settings", "notifications", "newsletter")})
		}
		return out
	}
	const prompt = "For each profile id in {{ids}}, read the user's city (user → address → city) and whether they get the newsletter (settings → notifications → newsletter) from the profile tool. Return one map per id, in the given order, with id, city and newsletter; nil where the profile lacks the field."
	ids1 := []string{"U048", "U040", "U054", "U042", "U050", "U046", "U044", "U052"}
	ids2 := []string{"U086", "U056", "U070", "U062", "U080", "U058", "U074"}
	// A missing field must be there as nil: a map without the key fails.
	strict := eval.Satisfies(`(fn [r] (every? #(and (contains? % :city) (contains? % :newsletter)) r))`)
	t := Task{
		Task: eval.Task{
			Name:        "nested-profiles",
			Description: "extraction from nested JSON: get-in paths, nil where a level is missing",
			Tags:        []string{"json", "exploration", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(ids [:string]) -> [{id :string, city :string?, newsletter :bool?}]",
				Tools:     map[string]agent.Tool{"profile": tool},
			},
			Cases: []eval.Case{
				{Name: "eight", Input: map[string]any{"ids": ids1}, Checks: []eval.Check{eval.Equals(expect(ids1)), strict}},
				{Name: "shuffled", Input: map[string]any{"ids": ids2}, Checks: []eval.Check{eval.Equals(expect(ids2)), strict}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "For each profile id in ") {
				return "", false
			}
			return program(`
(return (vec (pmap (fn [id]
                     (let [p (tool/profile {:id id})]
                       {:id id
                        :city (get-in p [:user :address :city])
                        :newsletter (get-in p [:settings :notifications :newsletter])}))
                   ctx/ids)))`), true
		},
		Decoys: []string{
			// the top-level city, and false for a missing newsletter
			`(return (mapv (fn [id] (let [p (tool/profile {:id id})] {:id id :city (:city p) :newsletter (boolean (get-in p [:settings :notifications :newsletter]))})) ctx/ids))`,
			// sorted by id instead of the given order
			`(return (mapv (fn [id] (let [p (tool/profile {:id id})] {:id id :city (get-in p [:user :address :city]) :newsletter (get-in p [:settings :notifications :newsletter])})) (sort ctx/ids)))`,
		},
	}
	return t, nil, nil
}
