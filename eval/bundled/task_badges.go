package bundled

import (
	"context"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, badgesTask) }

type employee struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Team string `json:"team"`
}

type badge struct {
	Employee string `json:"employee_id"`
	Active   bool   `json:"active"`
}

func badgesData() ([]employee, []badge) {
	s := lcg(5)
	teams := []string{"ops", "sales", "dev"}
	first := []string{"ada", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo"}
	var es []employee
	var bs []badge
	for i := range 40 {
		e := employee{ID: "E" + pad(10+i*3, 3), Name: pick(&s, first) + "-" + itoa(i), Team: pick(&s, teams)}
		es = append(es, e)
		switch s.intn(4) {
		case 0: // no badge at all
		case 1:
			bs = append(bs, badge{Employee: e.ID, Active: false})
		default:
			bs = append(bs, badge{Employee: e.ID, Active: true})
		}
	}
	// badges come in an order of their own
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Active && !bs[j].Active })
	return es, bs
}

// badgesTask: a set comparison across two tools: the employees of a team
// (first tool) without an active badge (second tool).
func badgesTask(context.Context) (Task, func() error, error) {
	es, bs := badgesData()
	employees := agent.Tool{
		Signature:   "(team :string) -> [{id :string, name :string, team :string}]",
		Description: "Lists the employees of a team.",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			team := argString(args, "team")
			out := []employee{}
			for _, e := range es {
				if e.Team == team {
					out = append(out, e)
				}
			}
			return out, nil
		},
	}
	badges := agent.Tool{
		Signature:   "() -> [{employee_id :string, active :bool}]",
		Description: "Lists every issued badge, active or revoked.",
		Func:        func(ctx context.Context, args *lisp.Map) (any, error) { return bs, nil },
	}
	expect := func(team string) []string {
		active := map[string]bool{}
		for _, b := range bs {
			if b.Active {
				active[b.Employee] = true
			}
		}
		out := []string{}
		for _, e := range es {
			if e.Team == team && !active[e.ID] {
				out = append(out, e.ID)
			}
		}
		sort.Strings(out)
		return out
	}
	const prompt = "Which employees of team {{team}} have no active badge (none issued, or only revoked ones)? Use the employees and badges tools; return their ids, sorted."
	t := Task{
		Task: eval.Task{
			Name:        "missing-badges",
			Description: "a set comparison across two tools: the items of one not (actively) in the other",
			Tags:        []string{"sets", "join", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(team :string) -> [:string]",
				Tools:     map[string]agent.Tool{"employees": employees, "badges": badges},
			},
			Cases: []eval.Case{
				{Name: "ops", Input: map[string]any{"team": "ops"}, Checks: []eval.Check{eval.Equals(expect("ops"))}},
				{Name: "dev", Input: map[string]any{"team": "dev"}, Checks: []eval.Check{eval.Equals(expect("dev"))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Which employees of team ") {
				return "", false
			}
			return program(`
(let [active (set (map :employee_id (filter :active (tool/badges {}))))]
  (return (sort (remove active (map :id (tool/employees {:team ctx/team}))))))`), true
		},
		Decoys: []string{
			// revoked badges counted as badges
			`(let [issued (set (map :employee_id (tool/badges {})))] (return (sort (remove issued (map :id (tool/employees {:team ctx/team}))))))`,
			// only the employees with a revoked badge
			`(let [revoked (set (map :employee_id (remove :active (tool/badges {}))))] (return (sort (filter revoked (map :id (tool/employees {:team ctx/team}))))))`,
		},
	}
	return t, nil, nil
}
