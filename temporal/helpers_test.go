package temporal

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
	"go.temporal.io/sdk/client"
)

// runRoot runs the agent root as a mission on a test worker answered by
// model; tokenLimit (0: none) bounds the tokens of the mission's tree.
func runRoot(t *testing.T, root *agent.Agent, model llm.Model, tokenLimit int) (*agent.Step, error) {
	t.Helper()
	env := newEnv(t, WorkerOptions{Agents: map[string]*agent.Agent{"root": root}, Model: model})
	in := input(t, "root", nil)
	in.Run.TokenLimit = tokenLimit
	return runEnv(t, env, in)
}

// scripted is a model that answers by the mission (a word of its prompt)
// and the turn, and counts the requests it completed: a request made twice
// is a repeated LLM call.
type scripted struct {
	mu      sync.Mutex
	replies map[string][]string // by a word the prompt contains
	calls   *counter            // completed requests by prompt and turn
	reqs    []llm.Request
	fail    func(req llm.Request, n int) error // n: the attempt of this prompt and turn, from 1
	tries   map[string]int
}

func newScripted(replies map[string][]string) *scripted {
	return &scripted{replies: replies, calls: newCounter(), tries: map[string]int{}}
}

func (s *scripted) Func(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := fmt.Sprintf("%s#%d", req.Prompt, req.Turn)
	s.tries[key]++
	if s.fail != nil {
		if err := s.fail(req, s.tries[key]); err != nil {
			return llm.Response{}, err
		}
	}
	for word, rs := range s.replies {
		if strings.Contains(req.Prompt, word) {
			if req.Turn > len(rs) {
				return llm.Response{}, &llm.Error{Class: llm.ClassClientError, Message: "the script has no turn " + fmt.Sprint(req.Turn)}
			}
			s.calls.count(key)
			s.reqs = append(s.reqs, req)
			return llm.Response{Content: "```clojure\n" + rs[req.Turn-1] + "\n```", Tokens: llm.Tokens{Input: 10, Output: 5}}, nil
		}
	}
	return llm.Response{}, &llm.Error{Class: llm.ClassClientError, Message: "no script for " + req.Prompt}
}

// repeated lists the requests completed more than once.
func (s *scripted) repeated() []string { return s.calls.repeated() }

// total is the number of requests completed.
func (s *scripted) total() int { return s.calls.total() }

// counter counts calls by a key: a tool's by their arguments, a model's
// by prompt and turn.
type counter struct {
	mu    sync.Mutex
	calls map[string]int
}

func newCounter() *counter { return &counter{calls: map[string]int{}} }

func (c *counter) add(args *lisp.Map) { c.count(lisp.Print(args, lisp.PrintOptions{Exact: true})) }

func (c *counter) count(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[key]++
}

func (c *counter) repeated() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k, n := range c.calls {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	return out
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.calls {
		n += k
	}
	return n
}

func printed(v lisp.Value) string { return lisp.Print(v, lisp.PrintOptions{}) }

func mustAgent(t testing.TB, cfg agent.Config) *agent.Agent {
	t.Helper()
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// replayHistoryFile replays a history exported as JSON (see ReplayHistory).
func replayHistoryFile(path string, opts ReplayOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		return fmt.Errorf("temporal: replaying %s: %w", path, err)
	}
	if err := ReplayHistory(hist, opts); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
