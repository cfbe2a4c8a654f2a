package bundled

import (
	"context"
	"sort"
	"time"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, datesTask) }

// datesInvoice is a row of the invoices tool.
type datesInvoice struct {
	ID     string  `json:"id"`
	Issued string  `json:"issued"`
	Terms  int     `json:"terms_days"`
	Paid   bool    `json:"paid"`
	Amount float64 `json:"amount"`
}

// datesInvoices returns the 40 invoices of 2024.
func datesInvoices() []datesInvoice {
	s := lcg(2024)
	terms := []int{14, 30, 30, 45, 60}
	out := make([]datesInvoice, 40)
	for i := range out {
		out[i] = datesInvoice{
			ID:     "INV-" + pad(301+i, 4),
			Issued: "2024-" + pad(1+s.intn(11), 2) + "-" + pad(1+s.intn(28), 2),
			Terms:  pick(&s, terms),
			Paid:   s.intn(3) == 0,
			Amount: float64(1000+s.intn(500000)) / 100,
		}
	}
	return out
}

func datesDue(v datesInvoice) time.Time {
	d, err := time.Parse("2006-01-02", v.Issued)
	if err != nil {
		panic(err) // datesInvoices() writes valid dates
	}
	return d.AddDate(0, 0, v.Terms)
}

// datesTask: date arithmetic relative to a date given in the input (never
// "now"): due dates, days overdue, a boundary case on the due day itself.
func datesTask(context.Context) (Task, func() error, error) {
	rows := datesInvoices()
	invoicesTool := agent.Tool{
		Signature:   "() -> [{id :string, issued :string, terms_days :int, paid :bool, amount :float}]",
		Description: "Lists the invoices of 2024.",
		Func:        func(context.Context, *lisp.Map) (any, error) { return rows, nil },
	}
	expect := func(asOf string) map[string]any {
		day, err := time.Parse("2006-01-02", asOf)
		if err != nil {
			panic(err)
		}
		type late struct {
			id   string
			days int
		}
		var ls []late
		for _, v := range rows {
			if due := datesDue(v); !v.Paid && day.After(due) {
				ls = append(ls, late{v.ID, int(day.Sub(due).Hours() / 24)})
			}
		}
		sort.SliceStable(ls, func(i, j int) bool {
			if ls[i].days != ls[j].days {
				return ls[i].days > ls[j].days
			}
			return ls[i].id < ls[j].id
		})
		out := []map[string]any{}
		for _, l := range ls {
			out = append(out, map[string]any{"id": l.id, "days": l.days})
		}
		return map[string]any{"overdue": out}
	}
	// Each case's date is the due day of an unpaid datesInvoice, which is
	// therefore not yet overdue: "on or after" is a plausible slip.
	var dueDays []string
	for _, v := range rows {
		if !v.Paid {
			dueDays = append(dueDays, datesDue(v).Format("2006-01-02"))
		}
	}
	sort.Strings(dueDays)
	mk := func(asOf string) eval.Case {
		return eval.Case{Name: asOf, Input: map[string]any{"as_of": asOf}, Checks: []eval.Check{eval.Equals(expect(asOf))}}
	}
	const prompt = "Using the invoices tool: an datesInvoice is due terms_days days after it was issued, and overdue when it is unpaid and {{as_of}} is after its due date. List the overdue invoices with the number of days each is overdue as of {{as_of}}, most overdue first (ties by id)."
	t := Task{
		Task: eval.Task{
			Name:        "dates-overdue-invoices",
			Description: "dates: due dates from issue dates and terms, days overdue relative to a date in the input",
			Tags:        []string{"dates", "tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(as_of :string) -> {overdue [{id :string, days :int}]}",
				Tools:     map[string]agent.Tool{"invoices": invoicesTool},
			},
			Cases: []eval.Case{mk(dueDays[len(dueDays)/2]), mk(dueDays[len(dueDays)*3/4]), mk(dueDays[len(dueDays)-2])},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Using the invoices tool: an datesInvoice is due terms_days") {
				return "", false
			}
			return program(`
(let [day (fn [s] (quot (.getTime (java.util.Date. s)) 86400000))
      today (day ctx/as_of)
      late (for [v (tool/invoices {})
                 :let [due (+ (day (:issued v)) (:terms_days v))]
                 :when (and (not (:paid v)) (> today due))]
             {:id (:id v) :days (- today due)})]
  (return {:overdue (sort-by (juxt (comp - :days) :id) late)}))`), true
		},
		Decoys: []string{
			// overdue counted from the issue date, terms ignored
			`(let [day (fn [s] (quot (.getTime (java.util.Date. s)) 86400000)) today (day ctx/as_of) late (for [v (tool/invoices {}) :let [due (day (:issued v))] :when (and (not (:paid v)) (> today due))] {:id (:id v) :days (- today due)})] (return {:overdue (sort-by (juxt (comp - :days) :id) late)}))`,
			// due on the day counts as overdue
			`(let [day (fn [s] (quot (.getTime (java.util.Date. s)) 86400000)) today (day ctx/as_of) late (for [v (tool/invoices {}) :let [due (+ (day (:issued v)) (:terms_days v))] :when (and (not (:paid v)) (>= today due))] {:id (:id v) :days (- today due)})] (return {:overdue (sort-by (juxt (comp - :days) :id) late)}))`,
			// paid invoices not left out
			`(let [day (fn [s] (quot (.getTime (java.util.Date. s)) 86400000)) today (day ctx/as_of) late (for [v (tool/invoices {}) :let [due (+ (day (:issued v)) (:terms_days v))] :when (> today due)] {:id (:id v) :days (- today due)})] (return {:overdue (sort-by (juxt (comp - :days) :id) late)}))`,
		},
	}
	return t, nil, nil
}
