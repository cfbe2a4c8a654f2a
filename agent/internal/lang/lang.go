// Package lang holds the built-in language references of an agent's
// system prompt (see agent/prompt.Reference).
package lang

// The built-in language references of the system prompt. They are
// reference cards, not tutorials: every line is paid for on every turn of
// every mission, so each one states a rule the model would otherwise get
// wrong (where PTC-Lisp differs from Clojure, or an extension it cannot
// guess). Every claim here is checked against docs/language.md, and every
// ```clojure example is run by TestLanguageExamplesRun.
//
// A profile has two parts: the core, always shown, and the tool rules,
// shown only to agents that have tools (a single-shot agent has none, and
// should not pay for them).
//
// Parentheses in these texts are code only, never prose: the test runs
// every parenthesized form it finds.

// languageProfile is a built-in language reference: the core rules, the
// tool rules, and a ```clojure example with a tool part of its own.
type languageProfile struct {
	core, tools, example, toolExample string
}

var languageProfiles = map[string]languageProfile{
	"default": {core: langDefaultCore, tools: langDefaultTools, example: langDefaultExample, toolExample: langDefaultToolExample},
	"compact": {core: langCompactCore, tools: langCompactTools},
}

// text assembles the reference, with the tool rules or without.
func (p languageProfile) text(tools bool) string {
	s := p.core
	if tools {
		s += "\n" + p.tools
	}
	example := p.example
	if tools && p.toolExample != "" {
		example += "\n" + p.toolExample
	}
	if example != "" {
		s += "\n```clojure\n" + example + "\n```"
	}
	return s
}

// profileAliases are other names of the built-in profiles: the seeds call
// the token-efficient reference :minimal.
var profileAliases = map[string]string{"": "default", "minimal": "compact"}

// Name returns the built-in profile a name stands for, its aliases
// included, and whether there is one.
func Name(name string) (string, bool) {
	if alias, ok := profileAliases[name]; ok {
		name = alias
	}
	_, ok := languageProfiles[name]
	return name, ok
}

// Profiles returns the names of the built-in references, "default" first.
func Profiles() []string { return []string{"default", "compact"} }

// Text returns the text of the built-in profile name (a Name), with its
// tool rules or without; ok is false for other names.
func Text(name string, tools bool) (string, bool) {
	p, ok := languageProfiles[name]
	if !ok {
		return "", false
	}
	return p.text(tools), true
}

// The mode section of the prompt (prompt.go) covers what depends on the
// mode: def and memory across turns, println feedback, the contract of
// return. The references below hold what is true of every program.

const langDefaultCore = "## PTC-Lisp\n" +
	"Clojure syntax and core functions, with these differences:\n" +
	"- ctx/name reads an input, nil when absent. Data from JSON has string keys; keywords name them too, in lookups and in assoc, dissoc, update, find: (:id row), (get-in row [:user :name]), {:keys [id]}.\n" +
	"- map, filter, sort, rest... return seqs, shown as [..]: conj adds in front, as Clojure.\n" +
	"- Filters: (filter (where :status = \"paid\") rows); operators = not= < > <= >= in includes, none for truthy; paths [:user :tier]; combine with (all-of p q), (any-of p q), (none-of p).\n" +
	"- Aggregates: (sum-by :amount rows) (avg-by :amount rows) (pluck :id rows); (max-by :amount rows) and min-by return the row. (group-by :k rows) gives {k [rows]}; (update-vals groups count); (frequencies xs).\n" +
	"- Sorting: (sort-by :amount > rows) or (sort-by :amount :desc rows); top 5: (->> rows (sort-by :amount >) (take 5)).\n" +
	"- Strings: str subs (format \"%.2f\" x) parse-long parse-double re-find re-seq, and clojure.string as str/join str/split str/lower-case str/includes? str/starts-with? str/replace str/trim. Regexes are Java's, lookaround and backreferences too.\n" +
	"- Numbers: / always gives a float; round, floor, ceil give integers; integer overflow is an error.\n" +
	"- Dates: (LocalDate/parse \"2024-01-02\"), (LocalDate/of 2024 1 2); days between: (.between ChronoUnit/DAYS a b); (.plusDays a 3), .minusDays .plusMonths .isBefore .isAfter .getDayOfWeek .getMonthValue. Instants: (java.util.Date. \"2024-01-02T10:00:00Z\"), (.getTime d) in ms, (System/currentTimeMillis).\n" +
	"- Exceptions as in Clojure: (throw (ex-info \"no rows\" {:n 0})); (try (quot a b) (catch ArithmeticException e (ex-message e))).\n" +
	"- (return v) and (fail {:reason :not_found :message \"...\"}) end the program at once, from anywhere."

const langDefaultTools = "- Tools: (tool/name {:arg v}) returns data; (call \"name\" {:arg v}) takes the name as a string. A tool is not a value: wrap it, (mapv #(tool/get-user {:id %}) ids). (pmap #(tool/get-user {:id %}) ids) makes independent calls in parallel. A failing tool throws: (try (tool/get-user {:id 1}) (catch Exception e (ex-data e))) gives {:tool \"get-user\" :message \"...\"}."

const langDefaultExample = "(let [paid (filter (where :status = \"paid\") ctx/orders)]\n" +
	"  {:top (take 3 (sort-by :total > paid)) :sum (sum-by :total paid)})"

const langDefaultToolExample = "(def users (pmap #(tool/get-user {:id %}) (distinct (pluck :user_id ctx/orders))))"

const langCompactCore = "## PTC-Lisp, a Clojure subset\n" +
	"ctx/name reads input; keywords also name string keys, in lookups, assoc, dissoc, update.\n" +
	"(filter (where :k = v) xs); ops = not= < > <= >= in includes; (all-of p q) (any-of p q) (none-of p).\n" +
	"sum-by avg-by pluck, min-by/max-by return the row, group-by frequencies (sort-by :k > xs).\n" +
	"Strings: clojure.string as str/join str/split str/replace...; format parse-long; regexes: re-find re-seq, Java syntax.\n" +
	"/ gives a float; round gives an int. try/catch/ex-info as in Clojure. Dates: LocalDate/parse LocalDate/of, days between (.between ChronoUnit/DAYS a b), .plusDays .isBefore .getDayOfWeek; java.util.Date. .getTime.\n" +
	"(return v) or (fail {:reason :kw :message \"...\"}) ends the program."

const langCompactTools = "Tools: (tool/name {:k v}) or (call \"name\" {:k v}); not values, wrap: #(tool/name {:id %}); pmap runs calls in parallel. A failed call throws: ex-data {:tool :message}."
