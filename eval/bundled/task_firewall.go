package bundled

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, firewallTask) }

// firewallAccount is a row of the accounts tool; its _email is
// firewalled: programs read it, the model never sees it.
type firewallAccount struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Tier  string `json:"tier"`
	Email string `json:"_email"`
}

func firewallAccounts() []firewallAccount {
	s := lcg(808)
	tiers := []string{"gold", "silver", "bronze"}
	first := []string{"maria", "jonas", "aiko", "pedro", "leila", "tomas", "greta", "omar"}
	domains := []string{"mailbox.example.com", "post.example.org", "inbox.example.net"}
	out := make([]firewallAccount, 30)
	for i := range out {
		name := pick(&s, first)
		out[i] = firewallAccount{
			ID:    "AC-" + pad(700+i, 4),
			Name:  name,
			Tier:  pick(&s, tiers),
			Email: fmt.Sprintf("%s.%s@%s", name, pad(s.intn(10000), 4), pick(&s, domains)),
		}
	}
	return out
}

// firewallDeliverable is the check_email tool's verdict: a fixed function
// of the address, so only a program that passes the hidden address can
// know it.
func firewallDeliverable(email string) bool {
	h := fnv.New32a()
	h.Write([]byte(email))
	return h.Sum32()%3 != 0
}

// firewallTask: firewalled fields used by a program, passed to a tool,
// and kept out of the answer.
func firewallTask(context.Context) (Task, func() error, error) {
	rows := firewallAccounts()
	accountsTool := agent.Tool{
		Signature:   "() -> [{id :string, name :string, tier :string, _email :string}]",
		Description: "Lists the customer accounts.",
		Func:        func(context.Context, *lisp.Map) (any, error) { return rows, nil },
	}
	checkTool := agent.Tool{
		Signature:   "(email :string) -> {deliverable :bool}",
		Description: "Checks whether mail to an address would be delivered.",
		Func: func(_ context.Context, args *lisp.Map) (any, error) {
			e := argString(args, "email")
			if e == "" {
				return nil, fmt.Errorf("email is required: pass an account's address")
			}
			return map[string]any{"deliverable": firewallDeliverable(e)}, nil
		},
	}
	expect := func(tier string) map[string]any {
		ids := []string{}
		for _, a := range rows {
			if a.Tier == tier && firewallDeliverable(a.Email) {
				ids = append(ids, a.ID)
			}
		}
		return map[string]any{"ids": ids, "count": len(ids)}
	}
	mk := func(tier string) eval.Case {
		return eval.Case{Name: tier, Input: map[string]any{"tier": tier}, Checks: []eval.Check{eval.Equals(expect(tier))}}
	}
	const prompt = "Using the accounts and check_email tools, find the {{tier}} accounts whose email address is deliverable. Return their ids (sorted) and how many there are; do not return the addresses."
	t := Task{
		Task: eval.Task{
			Name:        "firewall-hidden-emails",
			Description: "firewalled fields: hidden _email addresses passed to a tool, the answer computed from its verdicts",
			Tags:        []string{"firewall", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(tier :string) -> {ids [:string], count :int}",
				Tools:     map[string]agent.Tool{"accounts": accountsTool, "check_email": checkTool},
			},
			Cases: []eval.Case{mk("gold"), mk("silver"), mk("bronze")},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Using the accounts and check_email tools, find the") {
				return "", false
			}
			if req.Turn == 1 { // a look at the rows: the model sees _email hidden
				return program(`
(def accounts (tool/accounts {}))
(println (count accounts) (first accounts))`), true
			}
			return program(`
(let [mine (filter (where :tier = ctx/tier) accounts)
      ok (filter #(:deliverable (tool/check_email {:email (:_email %)})) mine)
      ids (sort (map :id ok))]
  (return {:ids ids :count (count ids)}))`), true
		},
		Decoys: []string{
			// every account of the tier, the check skipped
			`(let [ids (sort (map :id (filter (where :tier = ctx/tier) (tool/accounts {}))))] (return {:ids ids :count (count ids)}))`,
			// the visible field name tried: nil is not an address
			`(let [mine (filter (where :tier = ctx/tier) (tool/accounts {})) ok (filter #(:deliverable (tool/check_email {:email (:email %)})) mine) ids (sort (map :id ok))] (return {:ids ids :count (count ids)}))`,
			// the addresses printed to look at them, no answer
			`(println (map :_email (tool/accounts {})))`,
		},
	}
	return t, nil, nil
}
