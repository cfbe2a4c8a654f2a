package bundled

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// toolReply is the reference's reply to a request of task t's mission in
// tool-calling mode: what a model calling its provider's functions
// natively would answer. ok is false when the request is not t's.
//
// It plays the task's reference programs against what the conversation
// shows the model, as such a model reasons: the input as the system prompt
// gives it (firewalled values as agent.Firewalled) and each call's result
// as it came back. The calls no result answers yet are asked for, those of
// one pmap or pcalls at once, in one reply; a program that fails on a
// result (an error the call returned) gives way to the task's next
// program, as a turn's failure does in program mode; a program's value is
// the answer, a call of return. A call whose arguments would hold a value
// the model was never shown ends the mission with a call of fail (reason
// firewalled_input): the tool-calling mode cannot pass on what it cannot
// see.
func toolReply(ctx context.Context, t Task, req llm.Request) (llm.Response, bool, error) {
	first := llm.Request{Prompt: req.Prompt, Turn: 1, Messages: req.Messages[:min(1, len(req.Messages))]}
	if _, ok := t.Solve(first); !ok {
		return llm.Response{}, false, nil
	}
	calls, err := replayCalls(ctx, t, req)
	if err != nil {
		return llm.Response{}, true, &llm.Error{Class: llm.ClassConfig, Message: "the reference's tool calls: " + err.Error()}
	}
	out := 0
	for _, c := range calls {
		out += len(c.ToolName) + len(c.Content)
	}
	return llm.Response{ToolCalls: calls, Model: "reference", FinishReason: "tool_calls",
		Tokens: llm.Tokens{Input: (len(req.System) + promptLen(req) + 3) / 4, Output: (out + 3) / 4}}, true, nil
}

// replayTurns bounds the task's programs one request replays.
const replayTurns = 12

// errPending ends a replayed program at a call no result answers yet.
var errPending = errors.New("replay: the call has no result yet")

// replayPrelude makes pmap and pcalls try every call before they give
// up on the ones no result answers yet, so that a reply asks for all of
// them at once (pmap runs one call at a time in a replay, in order).
const replayPrelude = `
(defn replay-pending? [e] (clojure.string/includes? (str (ex-message e)) "replay: the call has no result yet"))
(defn replay-all [thunks]
  (let [rs (mapv (fn [th] (try [:ok (th)] (catch Exception e (if (replay-pending? e) [:pending] (throw e))))) thunks)]
    (if (some #(= :pending (first %)) rs)
      (throw (ex-info "replay: the call has no result yet" {}))
      (mapv second rs))))
(defn pmap [f & colls] (replay-all (apply map (fn [& xs] (fn [] (apply f xs))) colls)))
(defn pcalls [& fs] (replay-all fs))
`

// replayCalls is the reply to req: the calls the task's programs make
// that the conversation has not answered, or return with their value.
func replayCalls(ctx context.Context, t Task, req llm.Request) ([]llm.Message, error) {
	wire := map[string]bool{} // the functions declared
	wraps := false
	for _, spec := range req.Tools {
		wire[spec.Name] = true
		if spec.Name == "return" {
			props, _ := spec.Parameters["properties"].(map[string]any)
			_, wraps = props["value"]
			wraps = wraps && len(props) == 1
		}
	}
	input, err := shownInput(req)
	if err != nil {
		return nil, err
	}
	r := &replayer{answers: answers(req.Messages), wire: wire}
	var ns *lisp.Namespace
	var last error // the last program's failure
	for turn := 1; turn <= replayTurns; turn++ {
		src, ok := t.Solve(llm.Request{Prompt: req.Prompt, Turn: turn, Messages: req.Messages[:min(1, len(req.Messages))]})
		if !ok {
			break
		}
		r.pending = nil
		res, err := lisp.Run(ctx, replayPrelude+programOf(src), lisp.Options{
			Input: input, Namespace: ns, Tools: r, Limits: lisp.Limits{MaxParallel: 1}})
		switch {
		case r.hidden != "":
			return []llm.Message{call("fail", map[string]any{"reason": "firewalled_input",
				"message": "the " + r.hidden + " call needs a value I am not shown"})}, nil
		case len(r.pending) > 0:
			return r.pendingCalls(), nil
		case err != nil:
			last = err
			continue // the program failed on a result: the next one
		}
		ns = res.Namespace
		switch res.Status {
		case lisp.Failed:
			v, _ := lisp.ToGo(res.Value)
			return []llm.Message{call("fail", v)}, nil
		case lisp.Completed:
			// A program that looked at the data gives way to the next; a
			// single-shot one (the same program on every turn, with no
			// return) answers with its value.
			next, ok := t.Solve(llm.Request{Prompt: req.Prompt, Turn: turn + 1, Messages: req.Messages[:min(1, len(req.Messages))]})
			if ok && (next != src || strings.Contains(src, "(return")) {
				continue
			}
		}
		v, err := lisp.ToGo(res.Value)
		if err != nil {
			return nil, err
		}
		if wraps {
			v = map[string]any{"value": v}
		}
		return []llm.Message{call("return", v)}, nil
	}
	msg := "the reference programs found no answer"
	if last != nil {
		msg += ": " + last.Error()
	}
	return []llm.Message{call("fail", map[string]any{"reason": "no_answer", "message": msg})}, nil
}

// programOf is the code of a reference reply (a fenced program).
func programOf(reply string) string {
	reply = strings.TrimSpace(reply)
	reply = strings.TrimPrefix(reply, "```clojure")
	return strings.TrimSuffix(reply, "```")
}

// shownInput is the input as a tool-mode system prompt shows it: the JSON
// of its "## Data" block (nil when it has none).
func shownInput(req llm.Request) (any, error) {
	texts := []string{req.System}
	if len(req.Messages) > 0 {
		texts = append(texts, req.Messages[0].Content)
	}
	for _, text := range texts {
		_, rest, ok := strings.Cut(text, "## Data\n```json\n")
		if !ok {
			continue
		}
		data, _, _ := strings.Cut(rest, "\n```")
		v, err := lisp.Read(data, lisp.ReadOptions{Format: lisp.ReadJSON})
		if err != nil {
			return nil, fmt.Errorf("the input shown is not JSON: %w", err)
		}
		return v, nil
	}
	return nil, nil
}

// answers maps each call of the conversation (its function and canonical
// arguments) to the result it got.
func answers(msgs []llm.Message) map[string]string {
	asked := map[string]string{} // call id -> key
	out := map[string]string{}
	for _, m := range msgs {
		switch {
		case m.Role == llm.Assistant && m.ToolName != "":
			asked[m.ToolCallID] = callKey(m.ToolName, m.Content)
		case m.Role == llm.User && m.ToolCallID != "":
			if key, ok := asked[m.ToolCallID]; ok {
				out[key] = m.Content
			}
		}
	}
	return out
}

// callKey names a call by its function and its arguments, whatever the
// order the provider wrote their keys in.
func callKey(name, args string) string {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			args = string(b)
		}
	}
	return name + " " + args
}

// replayer is the tools of a replayed program: each call is answered by
// the result the conversation holds for it, or recorded as pending.
type replayer struct {
	answers map[string]string
	wire    map[string]bool
	pending []llm.Message
	asked   map[string]bool
	hidden  string // a call whose arguments hold a firewalled value
}

func (r *replayer) CallTool(ctx context.Context, name string, args *lisp.Map) (any, error) {
	fn := strings.ReplaceAll(name, ".", "_") // as the agent declares it
	if !r.wire[fn] {
		return nil, &lisp.Error{Kind: lisp.UnknownTool, Message: "no function " + name}
	}
	data, err := lisp.ToJSON(args, nil)
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(data), agent.Firewalled) {
		r.hidden = name
		return nil, errPending
	}
	key := callKey(fn, string(data))
	result, ok := r.answers[key]
	if !ok {
		if r.asked == nil {
			r.asked = map[string]bool{}
		}
		if !r.asked[key] {
			r.asked[key] = true
			r.pending = append(r.pending, llm.Message{Role: llm.Assistant, ToolName: fn, Content: string(data)})
		}
		return nil, errPending
	}
	if msg, failed := strings.CutPrefix(result, "Error: "); failed {
		return nil, errors.New(msg)
	}
	return lisp.Read(result, lisp.ReadOptions{Format: lisp.ReadJSON})
}

// pendingCalls are the calls to ask for, with ids of their own.
func (r *replayer) pendingCalls() []llm.Message {
	out := make([]llm.Message, len(r.pending))
	for i, c := range r.pending {
		c.ToolCallID = fmt.Sprintf("ref-%d-%s", len(r.answers)+i+1, c.ToolName)
		out[i] = c
	}
	return out
}

// call is a call of a function with args as JSON.
func call(name string, args any) llm.Message {
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte("{}")
	}
	return llm.Message{Role: llm.Assistant, ToolName: name, ToolCallID: "ref-" + name, Content: string(b)}
}
