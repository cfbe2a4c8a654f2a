package agent_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/llm/llmtest"
)

// TestNilReceivers holds the API's policy for values not made by its
// constructors (docs/agents.md, "Nil and zero values"): every exported
// method of a nil *Agent, a zero Agent, a nil *CompiledAgent and a nil
// *Step returns, never panics; a method with an error result returns an
// error that says what is wrong.
func TestNilReceivers(t *testing.T) {
	for _, recv := range []struct {
		name string
		v    any
	}{
		{"nil *Agent", (*agent.Agent)(nil)},
		{"zero Agent", &agent.Agent{}},
		{"nil *CompiledAgent", (*agent.CompiledAgent)(nil)},
		{"zero CompiledAgent", &agent.CompiledAgent{}},
		{"nil *Step", (*agent.Step)(nil)},
	} {
		rv := reflect.ValueOf(recv.v)
		for i := 0; i < rv.NumMethod(); i++ {
			m := rv.Type().Method(i)
			t.Run(recv.name+"."+m.Name, func(t *testing.T) {
				fn := rv.Method(i)
				args := make([]reflect.Value, fn.Type().NumIn())
				for j := range args {
					in := fn.Type().In(j)
					switch {
					case in == reflect.TypeOf((*context.Context)(nil)).Elem():
						args[j] = reflect.ValueOf(context.Background())
					case fn.Type().IsVariadic() && j == len(args)-1:
						args[j] = reflect.Zero(in)
					default:
						args[j] = reflect.Zero(in)
					}
				}
				var out []reflect.Value
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("panicked: %v", r)
						}
					}()
					if fn.Type().IsVariadic() {
						out = fn.CallSlice(args)
					} else {
						out = fn.Call(args)
					}
				}()
				errType := reflect.TypeOf((*error)(nil)).Elem()
				for k := 0; k < fn.Type().NumOut(); k++ {
					if fn.Type().Out(k) != errType || out[k].IsNil() {
						continue
					}
					msg := out[k].Interface().(error).Error()
					if !strings.Contains(msg, "nil") && !strings.Contains(msg, "not made by") {
						t.Errorf("error %q does not say the receiver is nil or not made by its constructor", msg)
					}
				}
			})
		}
	}
}

// TestNilContext: Run, Compile and Execute treat a nil context as
// context.Background, as the guard in the mission always meant to.
func TestNilContext(t *testing.T) {
	a, err := agent.New(agent.Config{Prompt: "two"})
	if err != nil {
		t.Fatal(err)
	}
	var nilCtx context.Context // a nil context is what this test passes on purpose
	s := llmtest.NewScript(llmtest.Code("(return 2)"), llmtest.Code("(return 3)"))
	step, err := a.Run(nilCtx, agent.Options{LLM: s.Func()})
	if err != nil || !step.OK() {
		t.Fatalf("Run(nil ctx) = %v, %v", step, err)
	}
	c, err := a.Compile(nilCtx, agent.Options{LLM: s.Func()})
	if err != nil {
		t.Fatalf("Compile(nil ctx): %v", err)
	}
	step, err = c.Execute(nilCtx, nil)
	if err != nil || !step.OK() {
		t.Fatalf("Execute(nil ctx) = %v, %v", step, err)
	}
}
