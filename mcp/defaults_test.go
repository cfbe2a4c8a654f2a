package mcp_test

import (
	"context"
	"testing"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/mcp"
)

// TestServedToolsHaveNoMissionClock checks that the agents behind served
// tools have no clock of their own (agent.Config.MissionTimeout defaults
// to 60 s): a Go tool's call is bounded by the client's context alone, a
// code-mode program by its Limits.Timeout (-1 here: none).
func TestServedToolsHaveNoMissionClock(t *testing.T) {
	var bounded []bool
	probe := map[string]agent.Tool{"probe": agent.Tool{Func: func(ctx context.Context, _ *lisp.Map) (any, error) {
		_, ok := ctx.Deadline()
		bounded = append(bounded, ok)
		return 1, nil
	}}}
	s := mcp.NewService(mcp.ServiceOptions{})
	if err := s.AddTools(probe); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCodeMode(probe, mcp.CodeModeOptions{Limits: lisp.Limits{Timeout: -1}}); err != nil {
		t.Fatal(err)
	}
	cs := svConnect(t, s)
	if res, raw := svCall(t, cs, "probe", map[string]any{}); res.IsError {
		t.Fatalf("probe: %s", raw)
	}
	if res, raw := svRun(t, cs, `(tool/probe {})`, nil); res.IsError {
		t.Fatalf("run_program: %s", raw)
	}
	if len(bounded) != 2 || bounded[0] || bounded[1] {
		t.Errorf("the calls had a deadline: %v, want [false false]", bounded)
	}
}
