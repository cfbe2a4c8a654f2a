package bundled

import (
	"context"
	"strconv"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, regexTask) }

// regexNotes writes n support notes from seed, and returns them with the
// answer computed from what was written: the normalised ticket ids, and
// the sum of the dollar amounts of the notes that mention a refund.
func regexNotes(seed uint64, n int) (notes []string, tickets []string, refunds float64) {
	s := lcg(seed)
	ids := map[string]bool{}
	spell := []func(int) string{
		func(k int) string { return "TRK-" + pad(k, 6) },
		func(k int) string { return "trk-" + itoa(k) },
		func(k int) string { return "TRK " + itoa(k) },
		func(k int) string { return "Trk-" + pad(k, 4) },
	}
	money := func(cents int) string {
		whole := cents / 100
		w := itoa(whole)
		if whole >= 1000 {
			w = itoa(whole/1000) + "," + pad(whole%1000, 3)
		}
		return "$" + w + "." + pad(cents%100, 2)
	}
	for i := 0; i < n; i++ {
		k := 1 + s.intn(4000)
		ids["TRK-"+pad(k, 6)] = true
		cents := 100 + s.intn(250000)
		var note string
		switch s.intn(4) {
		case 0:
			note = "Customer asks about " + spell[s.intn(4)](k) + "; Refund of " + money(cents) + " approved."
			refunds += float64(cents) / 100
		case 1:
			note = "REFUND requested on " + spell[s.intn(4)](k) + ", amount " + money(cents) + ", see also " + spell[s.intn(4)](k) + "."
			refunds += float64(cents) / 100
		case 2:
			note = "Invoice " + money(cents) + " re-sent for " + spell[s.intn(4)](k) + "."
		default:
			note = "Shipment " + spell[s.intn(4)](k) + " delayed by " + strconv.Itoa(1+s.intn(9)) + " days; no charge."
		}
		notes = append(notes, note)
	}
	return notes, sortedKeys(ids), roundTo(refunds, 2)
}

// regexTask: text rules with regexes: extract, normalise, sum.
func regexTask(context.Context) (Task, func() error, error) {
	mk := func(name string, seed uint64, n int) eval.Case {
		notes, tickets, refunds := regexNotes(seed, n)
		return eval.Case{Name: name, Input: map[string]any{"notes": notes},
			Checks: []eval.Check{eval.Within(map[string]any{"tickets": tickets, "refunded": refunds}, 0.001)}}
	}
	const prompt = "Read the support notes in ctx/notes. Ticket ids are written in several ways (TRK-000123, trk-123, TRK 123, Trk-0123): list every ticket mentioned, each once, normalised to TRK- and six digits, sorted. Also sum the dollar amounts ($1,234.50) of the notes that mention a refund (in any case)."
	t := Task{
		Task: eval.Task{
			Name:        "text-tickets-refunds",
			Description: "text and regex rules: extract ticket ids in several spellings, normalise them, sum amounts of matching notes",
			Tags:        []string{"text", "regex", "no-tools"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(notes [:string]) -> {tickets [:string], refunded :float}",
			},
			Cases: []eval.Case{mk("twelve", 5, 12), mk("twenty", 11, 20), mk("thirty", 23, 30)},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Read the support notes in ctx/notes. Ticket ids") {
				return "", false
			}
			return program(`
(let [ids (for [n ctx/notes [_ d] (re-seq #"(?i)trk[- ](\d+)" n)]
            (format "TRK-%06d" (parse-long d)))
      amount (fn [n] (parse-double (replace (second (re-find #"\$([\d,]+\.\d\d)" n)) "," "")))
      refunds (filter #(re-find #"(?i)refund" %) ctx/notes)]
  (return {:tickets (sort (distinct ids)) :refunded (reduce + 0 (map amount refunds))}))`), true
		},
		Decoys: []string{
			// only the canonical spelling found
			`(return {:tickets (sort (distinct (mapcat #(re-seq #"TRK-\d{6}" %) ctx/notes))) :refunded (reduce + 0 (map #(parse-double (replace (second (re-find #"\$([\d,]+\.\d\d)" %)) "," "")) (filter #(re-find #"(?i)refund" %) ctx/notes)))})`,
			// refunds matched case-sensitively
			`(let [ids (for [n ctx/notes [_ d] (re-seq #"(?i)trk[- ](\d+)" n)] (format "TRK-%06d" (parse-long d)))] (return {:tickets (sort (distinct ids)) :refunded (reduce + 0 (map #(parse-double (replace (second (re-find #"\$([\d,]+\.\d\d)" %)) "," "")) (filter #(re-find #"refund" %) ctx/notes)))}))`,
			// thousands separators not removed: "1,234.50" reads as nil, skipped
			`(let [ids (for [n ctx/notes [_ d] (re-seq #"(?i)trk[- ](\d+)" n)] (format "TRK-%06d" (parse-long d)))] (return {:tickets (sort (distinct ids)) :refunded (reduce + 0 (keep #(parse-double (second (re-find #"\$([\d.]+)" %))) (filter #(re-find #"(?i)refund" %) ctx/notes)))}))`,
		},
	}
	return t, nil, nil
}
