package bundled

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"sync"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, recoverTask) }

// recoverTrackingID is the only form of id the track tool accepts.
var recoverTrackingID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^TRK-\d{6}$`) })

// recoverStatus is the track tool's answer for shipment n.
func recoverStatus(n int) string {
	s := lcg(uint64(n) * 2654435761)
	return pick(&s, []string{"in_transit", "delivered", "delivered", "delayed", "returned"})
}

// recoverTask: recovery from a tool's error message that states the
// argument format the signature does not.
func recoverTask(context.Context) (Task, func() error, error) {
	trackTool := agent.Tool{
		Signature:   "(id :string) -> {id :string, status :string}",
		Description: "Tracks a shipment.",
		Func: func(_ context.Context, args *lisp.Map) (any, error) {
			id := argString(args, "id")
			if !recoverTrackingID().MatchString(id) {
				return nil, fmt.Errorf("%q is not a tracking id: write TRK- and the shipment number in six digits, e.g. TRK-000123 for shipment 123", id)
			}
			n := 0
			for _, c := range id[4:] {
				n = n*10 + int(c-'0')
			}
			return map[string]any{"id": id, "status": recoverStatus(n)}, nil
		},
	}
	shipments := func(seed uint64, k int) []int {
		s := lcg(seed)
		seen := map[int]bool{}
		var out []int
		for len(out) < k {
			if n := 1 + s.intn(99999); !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		return out
	}
	mk := func(name string, seed uint64, k int) eval.Case {
		nums := shipments(seed, k)
		delayed := []int{}
		delivered := 0
		for _, n := range nums {
			switch recoverStatus(n) {
			case "delayed":
				delayed = append(delayed, n)
			case "delivered":
				delivered++
			}
		}
		sort.Ints(delayed)
		return eval.Case{Name: name, Input: map[string]any{"shipments": nums},
			Checks: []eval.Check{eval.Equals(map[string]any{"delayed": delayed, "delivered": delivered})}}
	}
	const prompt = "Track each shipment number in ctx/shipments with the track tool. Return the numbers of the delayed shipments (sorted) and how many were delivered."
	t := Task{
		Task: eval.Task{
			Name:        "recover-from-tool-error",
			Description: "error recovery: the tool rejects a badly written id and its message gives the format",
			Tags:        []string{"errors", "multi-turn", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(shipments [:int]) -> {delayed [:int], delivered :int}",
				Tools:     map[string]agent.Tool{"track": trackTool},
			},
			Cases: []eval.Case{mk("eight", 33, 8), mk("twelve", 37, 12), mk("fifteen", 41, 15)},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Track each shipment number in ctx/shipments") {
				return "", false
			}
			if req.Turn == 1 { // the plausible first try: the number as it is
				return program(`
(let [rows (pmap (fn [n] (assoc (tool/track {:id (str n)}) :n n)) ctx/shipments)]
  (return {:delayed (sort (map :n (filter (where :status = "delayed") rows)))
           :delivered (count (filter (where :status = "delivered") rows))}))`), true
			}
			return program(`
(let [rows (pmap (fn [n] (assoc (tool/track {:id (format "TRK-%06d" n)}) :n n)) ctx/shipments)]
  (return {:delayed (sort (map :n (filter (where :status = "delayed") rows)))
           :delivered (count (filter (where :status = "delivered") rows))}))`), true
		},
		Decoys: []string{
			// the id padded to the wrong width
			`(let [rows (pmap (fn [n] (assoc (tool/track {:id (str "TRK-" n)}) :n n)) ctx/shipments)] (return {:delayed (sort (map :n (filter (where :status = "delayed") rows))) :delivered (count (filter (where :status = "delivered") rows))}))`,
			// in transit counted as delayed
			`(let [rows (pmap (fn [n] (assoc (tool/track {:id (format "TRK-%06d" n)}) :n n)) ctx/shipments)] (return {:delayed (sort (map :n (filter (where :status in ["delayed" "in_transit"]) rows))) :delivered (count (filter (where :status = "delivered") rows))}))`,
		},
	}
	return t, nil, nil
}
