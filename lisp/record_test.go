package lisp

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Records (rows sharing a shape) must be indistinguishable from tree maps
// of the same entries: every program below runs over the same rows built
// both ways and must print the same result or fail with the same message.

// recordRows returns n rows as JSON decoded by Read (JSON) (records from the
// third row on) and as tree maps built one by one.
func recordRows(t testing.TB, n int) (records, trees *Vector) {
	t.Helper()
	var b strings.Builder
	b.WriteString("[")
	var rows []Value
	statuses := []string{"open", "closed", "pending"}
	for id := range n {
		if id > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": %d, "amount": %d, "status": %q, "customer": "c%d", "tags": ["t%d"], "meta": {"x": %d, "y": null}}`,
			id, id*37%500, statuses[id%3], id%7, id%2, id%4)
		rows = append(rows, NewMap(
			"id", int64(id), "amount", int64(id*37%500), "status", statuses[id%3],
			"customer", fmt.Sprintf("c%d", id%7), "tags", vectorOf(fmt.Sprintf("t%d", id%2)),
			"meta", NewMap("x", int64(id%4), "y", nil)))
	}
	b.WriteString("]")
	v, err := parseJSON([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*Vector), NewVector(rows)
}

func TestRecordsAreMaps(t *testing.T) {
	records, trees := recordRows(t, 40)
	var nrec int
	for _, x := range records.Items() {
		if m := x.(*Map); m.rec != nil {
			nrec++
			if inner, _ := m.Get("meta"); inner.(*Map).rec == nil {
				t.Errorf("nested object of row %v is not a record", m)
			}
		}
	}
	if nrec < 30 {
		t.Fatalf("only %d of 40 rows are records: the test would not test them", nrec)
	}
	programs := []string{
		`ctx/rows`,
		`(first ctx/rows)`,
		`(nth ctx/rows 5)`,
		`(pr-str (nth ctx/rows 5))`,
		`(str (nth ctx/rows 5))`,
		`(->> ctx/rows (filter (where :amount > 100)) (sum-by :amount))`,
		`(->> ctx/rows (group-by :customer) (map (fn [[k v]] [k (count v)])) (sort-by first))`,
		`(map :amount ctx/rows)`,
		`(map #(get % "amount") ctx/rows)`,
		`(map #(get % :amount) ctx/rows)`,
		`(map #(% :status) ctx/rows)`,
		`(map #(get-in % [:meta :x]) ctx/rows)`,
		`(map #(get-in % ["meta" "y"] :dflt) ctx/rows)`,
		`(map #(contains? % :id) ctx/rows)`,
		`(map #(contains? % "id") ctx/rows)`,
		`(map #(contains? % :nope) ctx/rows)`,
		`(map #(find % "status") (take 3 ctx/rows))`,
		`(map keys (take 3 ctx/rows))`,
		`(map vals (take 3 ctx/rows))`,
		`(map count ctx/rows)`,
		`(map seq (take 3 ctx/rows))`,
		`(map #(assoc % "amount" 0) (take 4 ctx/rows))`,
		`(map #(assoc % :amount 0) (take 4 ctx/rows))`,
		`(map #(assoc % "new" 1) (take 4 ctx/rows))`,
		`(map #(dissoc % "status") (take 4 ctx/rows))`,
		`(map #(dissoc % "nope") (take 4 ctx/rows))`,
		`(map #(dissoc % "id" "amount" "status" "customer" "tags" "meta") (take 4 ctx/rows))`,
		`(map #(update % "amount" inc) (take 4 ctx/rows))`,
		`(map #(update-in % ["meta" "x"] inc) (take 4 ctx/rows))`,
		`(map #(select-keys % ["id" "status"]) (take 4 ctx/rows))`,
		`(map #(merge % {"id" -1 :k 2}) (take 4 ctx/rows))`,
		`(map #(merge {"id" -1 "z" 2} %) (take 4 ctx/rows))`,
		`(map #(into {} %) (take 4 ctx/rows))`,
		`(map #(into [] %) (take 4 ctx/rows))`,
		`(map #(conj % ["id" 99]) (take 4 ctx/rows))`,
		`(map #(reduce-kv (fn [acc k v] (conj acc k)) [] %) (take 3 ctx/rows))`,
		`(map #(update-keys % keyword) (take 3 ctx/rows))`,
		`(map #(update-vals % str) (take 3 ctx/rows))`,
		`(map (fn [{:strs [id amount]}] (+ id amount)) ctx/rows)`,
		`(map (fn [{:keys [id amount] :or {amount 5}}] (+ id amount)) ctx/rows)`,
		`(map (fn [{id "id" {x "x"} "meta"}] [id x]) ctx/rows)`,
		`(= (nth ctx/rows 3) (nth ctx/rows 3))`,
		`(= (nth ctx/rows 3) (nth ctx/rows 4))`,
		`(= (nth ctx/rows 3) (assoc (nth ctx/rows 3) "id" 3))`,
		`(= (nth ctx/rows 3) {"id" 3 "amount" 111 "status" "open" "customer" "c3" "tags" ["t1"] "meta" {"x" 3 "y" nil}})`,
		`(= {"id" 3 "amount" 111 "status" "open" "customer" "c3" "tags" ["t1"] "meta" {"x" 3 "y" nil}} (nth ctx/rows 3))`,
		`(count (set ctx/rows))`,
		`(count (distinct (concat ctx/rows ctx/rows)))`,
		`(contains? (set ctx/rows) {"id" 3 "amount" 111 "status" "open" "customer" "c3" "tags" ["t1"] "meta" {"x" 3 "y" nil}})`,
		`(get (group-by identity ctx/rows) (nth ctx/rows 2))`,
		`(frequencies (map :meta ctx/rows))`,
		`(sort-by :meta ctx/rows)`,
		`(take 3 (sort (map #(select-keys % ["status"]) ctx/rows)))`,
		`(compare (nth ctx/rows 3) (nth ctx/rows 4))`,
		`(map #(into (sorted-map) %) (take 2 ctx/rows))`,
		`(map #(empty %) (take 2 ctx/rows))`,
		`(map map? (take 2 ctx/rows))`,
		`(map #(keys (:meta %)) (take 2 ctx/rows))`,
		`(into {} (map (juxt :id :status)) ctx/rows)`,
		`(apply merge-with + (map #(select-keys % ["amount" "id"]) ctx/rows))`,
		`(map #(zipmap (keys %) (vals %)) (take 2 ctx/rows))`,
		`(map #(-> % (assoc "id" 0) (dissoc "amount") (assoc "q" 1)) (take 3 ctx/rows))`,
		`(let [r (nth ctx/rows 5)] (r "nope" :d))`,
		`(:tags (last ctx/rows))`,
		`(tree-seq map? vals (nth ctx/rows 3))`,
		`(map #(apply hash-map (mapcat identity %)) (take 2 ctx/rows))`,
		`(map (partial reduce (fn [n [k v]] (+ n (count k))) 0) (take 2 ctx/rows))`,
		// Fused pipelines with keyword stages over records.
		`(->> ctx/rows (map :amount) (reduce +))`,
		`(->> ctx/rows (filter :tags) (keep :status) (into #{}))`,
		`(->> ctx/rows (remove :nope) (map :customer) frequencies)`,
		`(->> ctx/rows (map :meta) (map :x) (into []))`,
		// sum-by's loop over records of one shape, and its ways out.
		`(sum-by :amount ctx/rows)`,
		`(sum-by "amount" ctx/rows)`,
		`(sum-by :nope ctx/rows)`,
		`(sum-by :amount (vec (concat ctx/rows [{:amount 1.5}] ctx/rows)))`,
		`(sum-by :amount (conj ctx/rows {"amount" 2.5} {"amount" nil} {"amount" 1}))`,
		`(sum-by :amount (vec (interleave ctx/rows (map #(select-keys % ["amount"]) ctx/rows))))`,
		`(sum-by :amount (conj ctx/rows {:amount :x})) ; fails`,
		`(sum-by :status ctx/rows) ; fails`,
		`(sum-by :id (mapv #(assoc % "id" 9223372036854775807) ctx/rows)) ; fails`,
		`(sum-by :id (mapv #(assoc % "id" nil) ctx/rows))`,
		`(->> ctx/rows (group-by :customer) (map (fn [[k v]] [k (sum-by :amount v) (count v)])) (sort-by second >))`,
	}
	for _, src := range programs {
		got := map[string]string{}
		for name, rows := range map[string]*Vector{"records": records, "trees": trees} {
			res, err := Run(context.Background(), src, Options{Input: NewMap("rows", rows), Limits: patient(Limits{})})
			if err != nil {
				got[name] = "error: " + err.Error()
				continue
			}
			got[name] = printString(res.Value)
		}
		if strings.HasPrefix(got["trees"], "error") != strings.HasSuffix(src, "; fails") {
			t.Errorf("%s: %s", src, got["trees"])
		}
		if got["records"] != got["trees"] {
			t.Errorf("%s\n records: %.300s\n trees:   %.300s", src, got["records"], got["trees"])
		}
	}
}

// Exported to Go and JSON, records and trees are alike.
func TestRecordsExport(t *testing.T) {
	records, trees := recordRows(t, 10)
	for _, f := range []func(Value) (any, error){
		func(v Value) (any, error) { return ToGo(v) },
		func(v Value) (any, error) { b, err := ToJSON(v, nil); return string(b), err },
		func(v Value) (any, error) { return Print(v, PrintOptions{MaxItems: 3, MaxDepth: 2}), nil },
	} {
		a, err1 := f(records)
		b, err2 := f(trees)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("records %v (%v)\ntrees %v (%v)", a, err1, b, err2)
		}
	}
}

// Assoc keeps a record's shape when the key exists (and never changes the
// original); new keys and Dissoc make trees.
func TestRecordAssocDissoc(t *testing.T) {
	records, _ := recordRows(t, 5)
	r := records.At(4).(*Map)
	if r.rec == nil {
		t.Fatal("row 4 is not a record")
	}
	a := r.Assoc("amount", int64(-1))
	if a.rec != r.rec {
		t.Error("assoc of an existing key left the shape")
	}
	if v, _ := r.Get(Keyword("amount")); v != int64(4*37%500) {
		t.Errorf("assoc changed the original: %v", v)
	}
	if v, _ := a.Get(Keyword("amount")); v != int64(-1) {
		t.Errorf("assoc: %v", v)
	}
	if b := r.Assoc(Keyword("amount"), int64(1)); b.rec != nil || b.Len() != r.Len()+1 {
		t.Errorf("assoc of a keyword beside the string: rec %v len %d", b.rec != nil, b.Len())
	}
	if d := r.Dissoc("nope"); d != r {
		t.Error("dissoc of an absent key made a new map")
	}
	if d := r.Dissoc("id"); d.rec != nil || d.Len() != r.Len()-1 {
		t.Errorf("dissoc: rec %v len %d", d.rec != nil, d.Len())
	}
	b := NewMapBuilder(r)
	b.Set("id", int64(7))
	if m := b.Map(); m.Len() != r.Len() {
		t.Errorf("builder: len %d", m.Len())
	} else if v, _ := m.Get("id"); v != int64(7) {
		t.Errorf("builder: id %v", v)
	}
	if v, _ := r.Get("id"); v != int64(4) {
		t.Errorf("a builder from a record changed it: %v", v)
	}
}

// A prepared key (flexKey) caches its slot per shape; rows of two shapes
// and keys spelled both ways must still find the right values.
func TestRecordFlexKeyAcrossShapes(t *testing.T) {
	v, err := parseJSON([]byte(`[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6},{"b":7,"c":8},{"b":9,"c":10},{"b":11,"c":12},{"a":13,"b":14},{"a":15,"b":16}]`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), `[(mapv :b ctx/rows) (mapv :a ctx/rows) (mapv #(get % "c" :none) ctx/rows) (mapv (fn [{:keys [a c]}] [a c]) ctx/rows)]`,
		Options{Input: NewMap("rows", v)})
	if err != nil {
		t.Fatal(err)
	}
	want := `[[2 4 6 7 9 11 14 16] [1 3 5 nil nil nil 13 15] [:none :none :none 8 10 12 :none :none] [[1 nil] [3 nil] [5 nil] [nil 8] [nil 10] [nil 12] [13 nil] [15 nil]]]`
	if got := printString(res.Value); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Go values converted by FromGo: maps and structs with the same keys
// become records from the second one on.
func TestRecordsFromGo(t *testing.T) {
	type row struct {
		ID     int    `json:"id"`
		Status string `json:"status"`
	}
	v, err := FromGo(map[string]any{
		"structs": []row{{1, "a"}, {2, "b"}, {3, "c"}},
		"maps":    []map[string]any{{"id": 1, "x": true}, {"id": 2, "x": false}, {"id": 3, "x": nil}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"structs", "maps"} {
		rows, _ := v.(*Map).Get(name)
		var recs int
		for _, x := range rows.(*Vector).Items() {
			if x.(*Map).rec != nil {
				recs++
			}
		}
		if recs != 2 {
			t.Errorf("%s: %d records, want 2 (all but the first)", name, recs)
		}
	}
	res, err := Run(context.Background(), `[(map :id ctx/structs) (map :status ctx/structs) (map :x ctx/maps) (= (second ctx/maps) {"id" 2 "x" false})]`, Options{Input: v})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := printString(res.Value), `[[1 2 3] ["a" "b" "c"] [true false nil] true]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
