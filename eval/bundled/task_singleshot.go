package bundled

import (
	"context"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, singleShotTask) }

// singleShotTask: one program, no tools, no second chance: a median of
// an even count (the usual slip: the upper middle) and the rows below it.
// Every case has an even count, so that each decoy fails every case; the
// reference handles odd counts too.
func singleShotTask(context.Context) (Task, func() error, error) {
	scores := func(seed uint64, n int) []map[string]any {
		s := lcg(seed)
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"name": "runner-" + pad(i+1, 2), "minutes": float64(1800+s.intn(2400)) / 10}
		}
		return out
	}
	expect := func(rows []map[string]any) map[string]any {
		ms := make([]float64, len(rows))
		for i, r := range rows {
			ms[i] = r["minutes"].(float64)
		}
		sort.Float64s(ms)
		med := ms[len(ms)/2]
		if len(ms)%2 == 0 {
			med = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
		}
		faster := []string{}
		for _, r := range rows {
			if r["minutes"].(float64) < med {
				faster = append(faster, r["name"].(string))
			}
		}
		sort.Strings(faster)
		return map[string]any{"median": med, "faster": faster}
	}
	mk := func(name string, seed uint64, n int) eval.Case {
		rows := scores(seed, n)
		return eval.Case{Name: name, Input: map[string]any{"results": rows},
			Checks: []eval.Check{eval.Within(expect(rows), 0.001)}}
	}
	const prompt = "ctx/results holds the finishing times (in minutes) of a race. Give the median time and the names of the runners strictly faster than the median, sorted by name."
	t := Task{
		Task: eval.Task{
			Name:        "single-shot-median",
			Description: "single-shot: one program over the context, no tools; a median of an even count",
			Tags:        []string{"single-shot", "no-tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(results [{name :string, minutes :float}]) -> {median :float, faster [:string]}",
				MaxTurns:  1,
			},
			Cases: []eval.Case{mk("fourteen", 61, 14), mk("twenty", 67, 20), mk("forty", 71, 40)},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "ctx/results holds the finishing times") {
				return "", false
			}
			return program(`
(let [ms (sort (map :minutes ctx/results))
      n (count ms)
      med (if (even? n) (/ (+ (nth ms (dec (quot n 2))) (nth ms (quot n 2))) 2) (nth ms (quot n 2)))]
  {:median med :faster (sort (map :name (filter #(< (:minutes %) med) ctx/results)))})`), true
		},
		Decoys: []string{
			// the upper middle taken for an even count
			`(let [ms (sort (map :minutes ctx/results)) med (nth ms (quot (count ms) 2))] {:median med :faster (sort (map :name (filter #(< (:minutes %) med) ctx/results)))})`,
			// the middle of the unsorted times
			`(let [ms (mapv :minutes ctx/results) n (count ms) med (/ (+ (nth ms (dec (quot n 2))) (nth ms (quot n 2))) 2)] {:median med :faster (sort (map :name (filter #(< (:minutes %) med) ctx/results)))})`,
			// the mean, not the median
			`(let [med (avg-by :minutes ctx/results)] {:median med :faster (sort (map :name (filter #(< (:minutes %) med) ctx/results)))})`,
		},
	}
	return t, nil, nil
}
