package bundled

import (
	"context"
	"fmt"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, shipmentsTask) }

// shipment is what the track tool tells of one tracking id.
type shipment struct {
	ID       string `json:"id"`
	Customer string `json:"-"`
	Status   string `json:"status"`
	Carrier  string `json:"carrier"`
}

func shipmentsData() []shipment {
	s := lcg(99)
	statuses := []string{"delivered", "in_transit", "delayed", "delivered", "in_transit"}
	out := make([]shipment, 50)
	for i := range out {
		out[i] = shipment{
			ID:       "TRK-" + pad(123+i*37, 6),
			Customer: "C" + pad(1+s.intn(6), 3),
			Status:   pick(&s, statuses),
			Carrier:  pick(&s, []string{"dhl", "ups", "gls"}),
		}
	}
	return out
}

// shipmentsTask: a sequential dependency between two tools: the second
// takes ids only the first gives.
func shipmentsTask(context.Context) (Task, func() error, error) {
	data := shipmentsData()
	byID := map[string]shipment{}
	for _, sh := range data {
		byID[sh.ID] = sh
	}
	list := agent.Tool{
		Signature:   "(customer_id :string) -> [:string]",
		Description: "Lists the tracking ids of a customer's shipments.",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			c := argString(args, "customer_id")
			out := []string{}
			for _, sh := range data {
				if sh.Customer == c {
					out = append(out, sh.ID)
				}
			}
			return out, nil
		},
	}
	track := agent.Tool{
		Signature:   "(id :string) -> {id :string, status :string, carrier :string}",
		Description: "Tracks one shipment by its tracking id (TRK- and six digits).",
		Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			id := argString(args, "id")
			sh, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("no shipment %q: tracking ids look like TRK-000123", id)
			}
			return sh, nil
		},
	}
	expect := func(customer string) map[string]any {
		delayed := []string{}
		carriers := map[string]bool{}
		for _, sh := range data {
			if sh.Customer == customer && sh.Status == "delayed" {
				delayed = append(delayed, sh.ID)
				carriers[sh.Carrier] = true
			}
		}
		sort.Strings(delayed)
		return map[string]any{"delayed": delayed, "carriers": sortedKeys(carriers)}
	}
	const prompt = "Which shipments of customer {{customer_id}} are delayed? Get the customer's tracking ids from the shipments tool, track each one, and return the delayed ones' ids sorted, and the carriers of those, sorted and without repeats."
	t := Task{
		Task: eval.Task{
			Name:        "delayed-shipments",
			Description: "a pipeline of two tools: ids from the first feed the second, one call each",
			Tags:        []string{"pipeline", "tools", "pmap"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(customer_id :string) -> {delayed [:string], carriers [:string]}",
				Tools:     map[string]agent.Tool{"shipments": list, "track": track},
			},
			Cases: []eval.Case{
				{Name: "C002", Input: map[string]any{"customer_id": "C002"}, Checks: []eval.Check{eval.Equals(expect("C002"))}},
				{Name: "C005", Input: map[string]any{"customer_id": "C005"}, Checks: []eval.Check{eval.Equals(expect("C005"))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Which shipments of customer ") {
				return "", false
			}
			return program(`
(let [ids (tool/shipments {:customer_id ctx/customer_id})
      late (filter (where :status = "delayed") (pmap #(tool/track {:id %}) ids))]
  (return {:delayed (sort (map :id late)) :carriers (sort (distinct (map :carrier late)))}))`), true
		},
		Decoys: []string{
			// every shipment, not only the delayed ones
			`(let [ts (pmap #(tool/track {:id %}) (tool/shipments {:customer_id ctx/customer_id}))] (return {:delayed (sort (map :id ts)) :carriers (sort (distinct (map :carrier ts)))}))`,
			// carriers of all the customer's shipments
			`(let [ts (pmap #(tool/track {:id %}) (tool/shipments {:customer_id ctx/customer_id}))] (return {:delayed (sort (map :id (filter (where :status = "delayed") ts))) :carriers (sort (distinct (map :carrier ts)))}))`,
		},
	}
	return t, nil, nil
}
