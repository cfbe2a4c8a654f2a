package bundled

import (
	"context"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, exploreTask) }

// exploreStock is the inventory tool's answer: nested JSON whose shape
// neither the tool's signature nor the prompt gives.
func exploreStock() map[string]any {
	s := lcg(99)
	skus := []string{"SKU-100", "SKU-205", "SKU-310", "SKU-415", "SKU-520"}
	var sites []any
	for _, site := range []string{"Malmo", "Lyon", "Osaka", "Denver"} {
		var bins []any
		for b := 0; b < 6; b++ {
			bins = append(bins, map[string]any{
				"bin":  site[:2] + "-" + pad(b+1, 2),
				"item": map[string]any{"sku": pick(&s, skus), "counts": map[string]any{"on_hand": 1 + s.intn(90), "reserved": s.intn(10)}},
			})
		}
		sites = append(sites, map[string]any{"name": site, "layout": map[string]any{"bins": bins}})
	}
	return map[string]any{"meta": map[string]any{"version": 3, "generated": "2024-05-01"}, "payload": map[string]any{"sites": sites}}
}

// exploreTask: multi-step exploration of a value of unknown shape.
func exploreTask(context.Context) (Task, func() error, error) {
	stock := exploreStock()
	inventoryTool := agent.Tool{
		Signature:   "() -> :map",
		Description: "Returns the stock report of every site.",
		Func:        func(context.Context, *lisp.Map) (any, error) { return stock, nil },
	}
	expect := func(sku string) map[string]any {
		total, per := 0, map[string]int{}
		var order []string
		for _, site := range stock["payload"].(map[string]any)["sites"].([]any) {
			sm := site.(map[string]any)
			name := sm["name"].(string)
			order = append(order, name)
			for _, b := range sm["layout"].(map[string]any)["bins"].([]any) {
				item := b.(map[string]any)["item"].(map[string]any)
				if item["sku"] == sku {
					n := item["counts"].(map[string]any)["on_hand"].(int)
					total += n
					per[name] += n
				}
			}
		}
		top, best := "", -1
		for _, name := range order {
			if per[name] > best {
				top, best = name, per[name]
			}
		}
		return map[string]any{"total": total, "top_site": top}
	}
	const prompt = "The inventory tool returns a stock report whose shape you must discover. Find the total quantity on hand of {{sku}} across all sites, and the name of the site holding the most of it."
	mk := func(sku string) eval.Case {
		return eval.Case{Name: sku, Input: map[string]any{"sku": sku}, Checks: []eval.Check{eval.Equals(expect(sku))}}
	}
	t := Task{
		Task: eval.Task{
			Name:        "explore-unknown-shape",
			Description: "multi-step exploration: a tool returns nested JSON of unknown shape; look (twice), then answer",
			Tags:        []string{"exploration", "multi-turn", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(sku :string) -> {total :int, top_site :string}",
				Tools:     map[string]agent.Tool{"inventory": inventoryTool},
			},
			Cases: []eval.Case{mk("SKU-205"), mk("SKU-415"), mk("SKU-520")},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "The inventory tool returns a stock report whose shape") {
				return "", false
			}
			switch req.Turn { // look, look deeper, then answer
			case 1:
				return program(`
(def report (tool/inventory {}))
(println (update-vals report #(if (map? %) (keys %) %)))`), true
			case 2:
				return program(`
(println (count (get-in report [:payload :sites])) (first (get-in report [:payload :sites])))`), true
			}
			return program(`
(let [per (for [site (get-in report [:payload :sites])]
            {:name (:name site)
             :qty (->> (get-in site [:layout :bins])
                       (filter #(= ctx/sku (get-in % [:item :sku])))
                       (map #(get-in % [:item :counts :on_hand]))
                       (reduce + 0))})]
  (return {:total (reduce + 0 (map :qty per)) :top_site (:name (max-by :qty per))}))`), true
		},
		Decoys: []string{
			// a guessed flat shape
			`(let [rows (tool/inventory {})] (return {:total (sum-by :on_hand (filter (where :sku = ctx/sku) rows)) :top_site "Malmo"}))`,
			// on hand and reserved added up
			`(let [bins (mapcat #(get-in % [:layout :bins]) (get-in (tool/inventory {}) [:payload :sites])) mine (filter #(= ctx/sku (get-in % [:item :sku])) bins)] (return {:total (reduce + 0 (map #(+ (get-in % [:item :counts :on_hand]) (get-in % [:item :counts :reserved])) mine)) :top_site "Malmo"}))`,
		},
	}
	return t, nil, nil
}
