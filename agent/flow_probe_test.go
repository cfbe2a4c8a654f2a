package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/internal/leaks"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/llmtest"
)

func TestFlowProbe(t *testing.T) {
	progs := []string{
		`(clojure.string/upper-case ctx/_secret)`,
		`{:up (clojure.string/upper-case ctx/_secret) :n (count ctx/_secret) :rev (apply str (reverse ctx/_secret)) :p (subs ctx/_secret 0 5)}`,
		`(println "pin x3:" (* 3 ctx/_pin) "len" (count ctx/_secret)) (println "public" ctx/public) (mapv int (subs ctx/_secret 0 4))`,
		`(def up (clojure.string/upper-case ctx/_secret)) (def n (* 2 ctx/_pin)) 1`,
		`(println up n) [up n]`,
		`(throw (ex-info (str "bad " (clojure.string/upper-case ctx/_secret)) {:v (subs ctx/_secret 0 3) :ok 1}))`,
		`(let [r (tool/get {})] (println (clojure.string/upper-case (:_token r))) (tool/echo {:s (subs ctx/_secret 0 4)}))`,
	}
	var replies []llmtest.Reply
	for _, p := range progs {
		replies = append(replies, llmtest.Code(p))
	}
	replies = append(replies, llmtest.Code(`(return 1)`))
	a, err := agent.New(agent.Config{Prompt: "Use the data.", Tools: leaks.Tools("tok-3f9a1c7e"), MaxTurns: 10, Limits: lisp.Limits{}})
	if err != nil {
		t.Fatal(err)
	}
	s := llmtest.NewScript(replies...)
	step, _ := a.Run(context.Background(), agent.Options{LLM: s.Func(), Input: leaks.Context("tok-3f9a1c7e"), Debug: true})
	for _, tr := range step.Trace {
		t.Logf("turn %d: %s", tr.Number, tr.Feedback)
	}
	_ = strings.ToUpper
}
