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

func init() { builders = append(builders, foldTask) }

// foldMovement is a row of the transactions tool.
type foldMovement struct {
	ID     string  `json:"id"`
	Date   string  `json:"date"`
	Amount float64 `json:"amount"`
}

// foldMovements returns an account's 30 foldMovements of 2024, one a day at
// most, in the order the tool returns them (not by date).
func foldMovements(seed uint64) []foldMovement {
	s := lcg(seed)
	seen := map[string]bool{}
	var out []foldMovement
	for len(out) < 30 {
		date := fmt.Sprintf("2024-%s-%s", pad(1+s.intn(12), 2), pad(1+s.intn(28), 2))
		if seen[date] { // one a day: the date order is total
			continue
		}
		seen[date] = true
		amt := float64(-40000+s.intn(60000)) / 100 // more out than in
		out = append(out, foldMovement{ID: "T" + pad(len(out)+1, 3), Date: date, Amount: amt})
	}
	return out
}

// foldTask: a stateful fold over rows that must be put in order first.
func foldTask(context.Context) (Task, func() error, error) {
	accounts := map[string][]foldMovement{"A-17": foldMovements(17), "B-02": foldMovements(2), "C-40": foldMovements(40)}
	txTool := agent.Tool{
		Signature:   "(account :string) -> [{id :string, date :string, amount :float}]",
		Description: "Lists an account's foldMovements of 2024 (positive: deposits, negative: withdrawals), in no particular order.",
		Func: func(_ context.Context, args *lisp.Map) (any, error) {
			rows, ok := accounts[argString(args, "account")]
			if !ok {
				return nil, fmt.Errorf("no account %q: the accounts are A-17, B-02 and C-40", argString(args, "account"))
			}
			return rows, nil
		},
	}
	expect := func(account string, opening float64) map[string]any {
		rows := append([]foldMovement(nil), accounts[account]...)
		sort.Slice(rows, func(i, j int) bool { return rows[i].Date < rows[j].Date })
		bal, lowest := opening, opening
		var first any
		for _, m := range rows {
			bal += m.Amount
			if bal < lowest {
				lowest = bal
			}
			if bal < 0 && first == nil {
				first = m.Date
			}
		}
		return map[string]any{"final": roundTo(bal, 2), "lowest": roundTo(lowest, 2), "first_negative": first}
	}
	mk := func(account string, opening float64) eval.Case {
		return eval.Case{Name: account, Input: map[string]any{"account": account, "opening": opening},
			Checks: []eval.Check{eval.Within(expect(account, opening), 0.01)}}
	}
	const prompt = "Replay the 2024 foldMovements of account {{account}} (transactions tool) in date order, starting from an opening balance of {{opening}}. Return the final balance, the lowest balance reached, and the date of the first foldMovement after which the balance was negative (nil if it never was)."
	t := Task{
		Task: eval.Task{
			Name:        "fold-running-balance",
			Description: "a stateful fold: running balance in date order, its minimum, the first day it crosses zero",
			Tags:        []string{"fold", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(account :string, opening :float) -> {final :float, lowest :float, first_negative :string?}",
				Tools:     map[string]agent.Tool{"transactions": txTool},
			},
			Cases: []eval.Case{mk("A-17", 2500), mk("B-02", 800), mk("C-40", 2000)},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Replay the 2024 foldMovements of account") {
				return "", false
			}
			return program(`
(let [rows (sort-by :date (tool/transactions {:account ctx/account}))
      bals (reductions + ctx/opening (map :amount rows))
      after (rest bals)
      neg (first (filter #(neg? (second %)) (map vector rows after)))]
  (return {:final (last bals) :lowest (apply min bals) :first_negative (:date (first neg))}))`), true
		},
		Decoys: []string{
			// replayed in the tool's order
			`(let [rows (tool/transactions {:account ctx/account}) bals (reductions + ctx/opening (map :amount rows)) neg (first (filter #(neg? (second %)) (map vector rows (rest bals))))] (return {:final (last bals) :lowest (apply min bals) :first_negative (:date (first neg))}))`,
			// the opening balance forgotten
			`(let [rows (sort-by :date (tool/transactions {:account ctx/account})) bals (reductions + 0 (map :amount rows)) neg (first (filter #(neg? (second %)) (map vector rows (rest bals))))] (return {:final (last bals) :lowest (apply min bals) :first_negative (:date (first neg))}))`,
		},
	}
	return t, nil, nil
}
