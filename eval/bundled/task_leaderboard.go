package bundled

import (
	"context"
	"sort"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/eval"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

func init() { builders = append(builders, leaderboardTask) }

type score struct {
	Player string `json:"player"`
	Game   int    `json:"game"`
	Points int    `json:"points"`
}

// leaderboardScores are the games' scores: few distinct values, so that
// several players tie on their totals.
func leaderboardScores() []score {
	s := lcg(11)
	players := []string{"zoe", "yan", "xia", "wes", "val", "uma", "tom", "sam", "rae", "quin", "pat", "oli"}
	var out []score
	for g := 1; g <= 5; g++ {
		for _, p := range players {
			out = append(out, score{Player: p, Game: g, Points: 5 * s.intn(5)})
		}
	}
	return out
}

// leaderboardTask: a top-N with ties broken by a stated stable order.
func leaderboardTask(context.Context) (Task, func() error, error) {
	scores := leaderboardScores()
	tool := agent.Tool{
		Signature:   "() -> [{player :string, game :int, points :int}]",
		Description: "Lists every player's points in every game.",
		Func:        func(ctx context.Context, args *lisp.Map) (any, error) { return scores, nil },
	}
	type total struct {
		player string
		points int
	}
	expect := func(n int, fromGame int) []map[string]any {
		sums := map[string]int{}
		for _, sc := range scores {
			if sc.Game >= fromGame {
				sums[sc.Player] += sc.Points
			}
		}
		var ts []total
		for p, v := range sums {
			ts = append(ts, total{p, v})
		}
		sort.Slice(ts, func(i, j int) bool {
			if ts[i].points != ts[j].points {
				return ts[i].points > ts[j].points
			}
			return ts[i].player < ts[j].player
		})
		var out []map[string]any
		for i, t := range ts[:n] {
			out = append(out, map[string]any{"rank": i + 1, "player": t.player, "points": t.points})
		}
		return out
	}
	const prompt = "Rank the players by their total points over games {{from_game}} to 5, most first; players with equal totals in alphabetical order. Return the first {{n}}, each with its rank (1, 2, …), name and total."
	t := Task{
		Task: eval.Task{
			Name:        "leaderboard-ties",
			Description: "a top-N over summed scores with ties broken by name: a stable, stated order",
			Tags:        []string{"aggregation", "sorting"},
			Config: agent.Config{
				Prompt:    prompt,
				Signature: "(n :int, from_game :int) -> [{rank :int, player :string, points :int}]",
				Tools:     map[string]agent.Tool{"scores": tool},
			},
			Cases: []eval.Case{
				{Name: "top-5-from-game-2", Input: map[string]any{"n": 5, "from_game": 2}, Checks: []eval.Check{eval.Equals(expect(5, 2))}},
				{Name: "top-6-from-game-3", Input: map[string]any{"n": 6, "from_game": 3}, Checks: []eval.Check{eval.Equals(expect(6, 3))}},
			},
		},
		Solve: func(req llm.Request) (string, bool) {
			if !hasPrompt(req, "Rank the players by their total points") {
				return "", false
			}
			return program(`
(let [rows (filter (where :game >= ctx/from_game) (tool/scores {}))
      totals (map (fn [[p xs]] {:player p :points (sum-by :points xs)}) (group-by :player rows))
      ranked (sort-by (juxt #(- (:points %)) :player) totals)]
  (return (vec (map-indexed (fn [i r] (assoc r :rank (inc i))) (take ctx/n ranked)))))`), true
		},
		Decoys: []string{
			// ties in reverse alphabetical order
			`(let [rows (filter (where :game >= ctx/from_game) (tool/scores {})) totals (map (fn [[p xs]] {:player p :points (sum-by :points xs)}) (group-by :player rows))] (return (vec (map-indexed (fn [i r] (assoc r :rank (inc i))) (take ctx/n (reverse (sort-by :points totals)))))))`,
			// every game counted
			`(let [totals (map (fn [[p xs]] {:player p :points (sum-by :points xs)}) (group-by :player (tool/scores {})))] (return (vec (map-indexed (fn [i r] (assoc r :rank (inc i))) (take ctx/n (sort-by (juxt #(- (:points %)) :player) totals))))))`,
		},
	}
	return t, nil, nil
}
