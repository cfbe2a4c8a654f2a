package bundled

import (
	"context"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, sensorAlertTask) }

type reading struct {
	Sensor string  `json:"sensor"`
	At     string  `json:"at"`
	Value  float64 `json:"value"`
}

// sensorReadings are hourly readings of six sensors over a day, in the
// order a log collector might deliver them: not by time.
func sensorReadings() []reading {
	s := lcg(21)
	var out []reading
	for _, sensor := range []string{"s-1", "s-2", "s-3", "s-4", "s-5", "s-6"} {
		level := float64(40 + s.intn(20))
		for h := range 24 {
			level += float64(s.intn(9)) - 3.5
			out = append(out, reading{Sensor: sensor, At: "2024-05-01T" + pad(h, 2) + ":00:00Z", Value: level})
		}
	}
	// shuffle deterministically (Fisher-Yates on the lcg)
	for i := len(out) - 1; i > 0; i-- {
		j := s.intn(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// sensorAlertTask: a threshold alert over time series: the first crossing
// per sensor, in time order, not in the order the rows come.
func sensorAlertTask(context.Context) (Task, func() error, error) {
	rows := sensorReadings()
	tool := agent.Tool{
		Signature:   "() -> [{sensor :string, at :string, value :float}]",
		Description: "Returns the day's readings of every sensor, unordered.",
		Func:        func(ctx context.Context, args *lisp.Map) (any, error) { return rows, nil },
	}
	expect := func(limit float64) []map[string]any {
		first := map[string]reading{}
		for _, r := range rows {
			if r.Value <= limit {
				continue
			}
			if f, ok := first[r.Sensor]; !ok || r.At < f.At {
				first[r.Sensor] = r
			}
		}
		out := []map[string]any{}
		for _, s := range sortedKeys(first) {
			out = append(out, map[string]any{"sensor": s, "at": first[s].At, "value": first[s].Value})
		}
		return out
	}
	const prompt = "Alert on the sensors whose reading went above {{limit}}: for each such sensor, the first reading (in time) above the limit. Return them sorted by sensor, each with sensor, at and value; leave out the sensors that never went above."
	t := Task{
		Task: eval.Task{
			Name:        "sensor-first-crossing",
			Description: "a threshold alert over unordered time series: the first crossing per sensor",
			Tags:        []string{"time-series", "dates", "aggregation"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(limit :float) -> [{sensor :string, at :string, value :float}]",
				Tools:     map[string]agent.Tool{"readings": tool},
			},
			Cases: []eval.Case{
				{Name: "above-55", Input: map[string]any{"limit": 55.0}, Checks: []eval.Check{eval.Equals(expect(55))}},
				{Name: "above-62", Input: map[string]any{"limit": 62.0}, Checks: []eval.Check{eval.Equals(expect(62))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Alert on the sensors whose reading went above ") {
				return "", false
			}
			return program(`
(let [over (filter #(> (:value %) ctx/limit) (tool/readings {}))]
  (return (->> (group-by :sensor over)
               (map (fn [[s xs]] (select-keys (first (sort-by :at xs)) [:sensor :at :value])))
               (sort-by :sensor))))`), true
		},
		Decoys: []string{
			// the first in the order the rows came
			`(let [over (filter #(> (:value %) ctx/limit) (tool/readings {}))] (return (sort-by :sensor (map (fn [[s xs]] (select-keys (first xs) [:sensor :at :value])) (group-by :sensor over)))))`,
			// the highest reading instead of the first
			`(let [over (filter #(> (:value %) ctx/limit) (tool/readings {}))] (return (sort-by :sensor (map (fn [[s xs]] (select-keys (max-by :value xs) [:sensor :at :value])) (group-by :sensor over)))))`,
		},
	}
	return t, nil, nil
}
