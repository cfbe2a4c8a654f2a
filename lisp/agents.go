package lisp

import (
	"sync"
)

// Agents: (agent x), (send a f args...), send-off, @a, await, and the
// error handling of Clojure's (agent-error, restart-agent, :error-handler,
// :error-mode).
//
// A program's futures run at once on its own thread (refs.go), and so do
// an agent's actions: send runs f on the agent's value before it returns,
// so a program that sends and then awaits sees what Clojure shows it, and
// every run of the same program gives the same answer. What Clojure holds
// back is held back here too: the sends an action makes run after it, in
// order, and the sends of a transaction after it commits (none if it runs
// again or fails). Actions on one agent never overlap: a send from a pmap
// branch while another thread runs the agent's actions joins its queue,
// and that thread runs it; await waits for the queue to empty, or for the
// end of the run's time.
//
// An action that throws fails the agent, as in Clojure: its error is
// agent-error's, a send to it throws until restart-agent, and the actions
// queued wait for the restart; with an :error-handler (or :error-mode
// :continue) the handler sees the error and the agent goes on. A limit of
// the sandbox (steps, memory, time) ends the run as anywhere else.

// agentBox is an agent's queue and error state, beside its value (the
// cell's state, journaled as an atom's).
type agentBox struct {
	mu      sync.Mutex
	queue   []agentAction
	running bool
	runner  *thread       // the thread running the queue, while running
	idle    chan struct{} // closed when a run of the queue ends
	failed  *Exception
	handler Value
	// cont is :error-mode :continue.
	cont bool
}

// agentAction is one send: f and its arguments after the agent's value.
type agentAction struct {
	agent *Cell
	f     Value
	args  []Value
}

// agentArg is argument i of fn as an agent.
func agentArg(fn string, args []Value, i int) (*Cell, error) {
	if c, ok := args[i].(*Cell); ok && c.kind == agentCell {
		return c, nil
	}
	return nil, argError(fn, i, "an agent", args[i])
}

// send dispatches an action: held back inside an action or a transaction,
// else queued and, unless another thread is running the agent's actions,
// run here with the ones queued after it.
func (th *thread) send(act agentAction) error {
	if th.tx != nil {
		th.tx.sends = append(th.tx.sends, act)
		return nil
	}
	if th.action != nil {
		th.held = append(th.held, act)
		return nil
	}
	box := act.agent.agent
	box.mu.Lock()
	if box.failed != nil {
		exc := box.failed
		box.mu.Unlock()
		return agentFailed(exc)
	}
	if err := th.charge(int64(2 + len(act.args))); err != nil {
		box.mu.Unlock()
		return err
	}
	box.queue = append(box.queue, act)
	if box.running {
		box.mu.Unlock()
		return nil
	}
	box.running, box.runner, box.idle = true, th, make(chan struct{})
	box.mu.Unlock()
	return th.runAgent(act.agent)
}

// runAgent runs the agent's queued actions until none is left (or the
// agent fails), then the sends each held back.
func (th *thread) runAgent(a *Cell) error {
	box := a.agent
	stop := func() {
		box.running, box.runner = false, nil
		close(box.idle)
		box.mu.Unlock()
	}
	for {
		box.mu.Lock()
		if len(box.queue) == 0 || box.failed != nil {
			stop()
			return nil
		}
		act := box.queue[0]
		box.queue = box.queue[1:]
		box.mu.Unlock()
		held, err := th.runAction(act)
		if err != nil {
			box.mu.Lock()
			box.queue = nil
			stop()
			return err
		}
		for _, h := range held {
			if err := th.send(h); err != nil {
				box.mu.Lock()
				box.queue = nil
				stop()
				return err
			}
		}
	}
}

// runAction runs one action and sets the agent to its value; an error of
// the program goes to the handler or fails the agent. It returns the sends
// the action held back.
func (th *thread) runAction(act agentAction) ([]agentAction, error) {
	a, box := act.agent, act.agent.agent
	outerAction, outerHeld := th.action, th.held
	th.action, th.held = a, nil
	defer func() { th.action, th.held = outerAction, outerHeld }()
	s := a.load()
	args := make([]Value, 1+len(act.args))
	args[0] = s.val
	copy(args[1:], act.args)
	v, err := th.call(act.f, args)
	if err == nil {
		err = th.validate(a, v)
	}
	if err == nil {
		if _, err = th.casAtom(a, s, v); err == nil {
			return th.held, nil
		}
	}
	exc, ierr := th.caughtException(err)
	if exc == nil {
		if ierr != nil {
			return nil, ierr
		}
		return nil, err // a limit, a cancellation: the run ends
	}
	box.mu.Lock()
	handler, cont := box.handler, box.cont
	if !cont {
		box.failed = exc
	}
	box.mu.Unlock()
	if handler != nil {
		th.action = nil // the handler is no action: its sends go out at once
		if _, err := th.call(handler, []Value{a, exc}); err != nil {
			return nil, err
		}
	}
	return nil, nil // an action that failed sends nothing
}

// awaitAgents waits until the agents have run every action sent so far.
func (th *thread) awaitAgents(fn string, agents []Value) error {
	if th.action != nil {
		return classError(InvalidArgument, classIllegalState, "Can't await in agent action")
	}
	for i := range agents {
		a, err := agentArg(fn, agents, i)
		if err != nil {
			return err
		}
		box := a.agent
		box.mu.Lock()
		running, idle, failed, runner := box.running, box.idle, box.failed, box.runner
		box.mu.Unlock()
		if running && runner == th {
			// In a future or a delay that an action of this agent forces:
			// the action waits for this code, which would wait for it.
			return classError(InvalidArgument, classIllegalState, "Can't await an agent from inside its own action (a future or delay it runs): it would wait for ever")
		}
		if running {
			ctx := th.run.toolContext()
			select {
			case <-idle:
			case <-ctx.Done():
				return th.run.contextError(ctx.Err())
			}
			box.mu.Lock()
			failed = box.failed
			box.mu.Unlock()
		}
		if failed != nil {
			// Clojure's await sends an action, which a failed agent refuses.
			return agentFailed(failed)
		}
	}
	return nil
}

// agentFailed is the error of a send to a failed agent.
func agentFailed(cause *Exception) error {
	return (&Exception{class: classRuntime, message: "Agent is failed, needs restart", cause: cause}).error()
}

// agentOptions reads agent's and restart-agent's options.
func agentOptions(fn string, a []Value, from int, box *agentBox) (validator Value, clear bool, err error) {
	if (len(a)-from)%2 != 0 {
		return nil, false, errorf(ArityError, "%s expects options as keys and values, got an odd number", fn)
	}
	modeSet := false
	for i := from; i < len(a); i += 2 {
		k, _ := a[i].(Keyword)
		switch k {
		case "validator":
			if a[i+1] != nil {
				if validator, err = fnArg(fn, a, i+1); err != nil {
					return nil, false, err
				}
			}
		case "meta":
		case "error-handler":
			if a[i+1] != nil {
				if box.handler, err = fnArg(fn, a, i+1); err != nil {
					return nil, false, err
				}
			}
		case "error-mode":
			switch a[i+1] {
			case Keyword("continue"):
				box.cont = true
			case Keyword("fail"):
				box.cont = false
			default:
				return nil, false, errorf(InvalidArgument, "%s: :error-mode is :continue or :fail, got %s", fn, brief(a[i+1]))
			}
			modeSet = true
		case "clear-actions":
			clear = truthy(a[i+1])
		default:
			return nil, false, errorf(InvalidArgument, "%s takes the options :validator, :meta, :error-handler and :error-mode, got %s", fn, brief(a[i]))
		}
	}
	if !modeSet && box.handler != nil && fn == "agent" {
		box.cont = true // an agent made with a handler continues, as Clojure's
	}
	return validator, clear, nil
}

func registerAgents(t *builtinTable) {
	t.add("agent", 1, -1, func(th *thread, a []Value) (Value, error) {
		box := &agentBox{}
		validator, _, err := agentOptions("agent", a, 1, box)
		if err != nil {
			return nil, err
		}
		c, err := th.newCell(agentCell, a[0], validator)
		if err != nil {
			return nil, err
		}
		c.agent.handler, c.agent.cont = box.handler, box.cont
		return c, th.validate(c, a[0])
	})
	t.add("send", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := agentArg("send", a, 0)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("send", a, 1)
		if err != nil {
			return nil, err
		}
		return c, th.send(agentAction{agent: c, f: f, args: append([]Value(nil), a[2:]...)})
	}, "send-off")
	t.add("send-via", 3, -1, func(th *thread, a []Value) (Value, error) {
		c, err := agentArg("send-via", a, 1)
		if err != nil {
			return nil, err
		}
		f, err := fnArg("send-via", a, 2)
		if err != nil {
			return nil, err
		}
		return c, th.send(agentAction{agent: c, f: f, args: append([]Value(nil), a[3:]...)})
	})
	t.add("await", 0, -1, func(th *thread, a []Value) (Value, error) {
		return nil, th.awaitAgents("await", a)
	})
	t.add("await-for", 1, -1, func(th *thread, a []Value) (Value, error) {
		if _, err := intArg("await-for", a, 0); err != nil {
			return nil, err
		}
		return true, th.awaitAgents("await-for", a[1:])
	})
	t.add("agent-error", 1, 1, func(_ *thread, a []Value) (Value, error) {
		c, err := agentArg("agent-error", a, 0)
		if err != nil {
			return nil, err
		}
		c.agent.mu.Lock()
		defer c.agent.mu.Unlock()
		if c.agent.failed == nil {
			return nil, nil
		}
		return c.agent.failed, nil
	})
	t.add("restart-agent", 2, -1, func(th *thread, a []Value) (Value, error) {
		c, err := agentArg("restart-agent", a, 0)
		if err != nil {
			return nil, err
		}
		box := c.agent
		_, clear, err := agentOptions("restart-agent", a, 2, &agentBox{})
		if err != nil {
			return nil, err
		}
		box.mu.Lock()
		if box.failed == nil {
			box.mu.Unlock()
			return nil, classError(InvalidArgument, classRuntime, "Agent does not need a restart")
		}
		box.mu.Unlock()
		if err := th.validate(c, a[1]); err != nil {
			return nil, err
		}
		if _, err := th.resetCell(c, a[1]); err != nil {
			return nil, err
		}
		box.mu.Lock()
		box.failed = nil
		if clear {
			box.queue = nil
		}
		start := len(box.queue) > 0 && !box.running
		if start {
			box.running, box.runner, box.idle = true, th, make(chan struct{})
		}
		box.mu.Unlock()
		if start {
			return a[1], th.runAgent(c)
		}
		return a[1], nil
	})
	t.add("set-error-handler!", 2, 2, func(_ *thread, a []Value) (Value, error) {
		c, err := agentArg("set-error-handler!", a, 0)
		if err != nil {
			return nil, err
		}
		if a[1] != nil {
			if _, err := fnArg("set-error-handler!", a, 1); err != nil {
				return nil, err
			}
		}
		c.agent.mu.Lock()
		c.agent.handler = a[1]
		c.agent.mu.Unlock()
		return nil, nil
	})
	t.add("error-handler", 1, 1, func(_ *thread, a []Value) (Value, error) {
		c, err := agentArg("error-handler", a, 0)
		if err != nil {
			return nil, err
		}
		c.agent.mu.Lock()
		defer c.agent.mu.Unlock()
		return c.agent.handler, nil
	})
	t.add("set-error-mode!", 2, 2, func(_ *thread, a []Value) (Value, error) {
		c, err := agentArg("set-error-mode!", a, 0)
		if err != nil {
			return nil, err
		}
		c.agent.mu.Lock()
		defer c.agent.mu.Unlock()
		_, _, err = agentOptions("set-error-mode!", []Value{Keyword("error-mode"), a[1]}, 0, c.agent)
		return nil, err
	})
	t.add("error-mode", 1, 1, func(_ *thread, a []Value) (Value, error) {
		c, err := agentArg("error-mode", a, 0)
		if err != nil {
			return nil, err
		}
		c.agent.mu.Lock()
		defer c.agent.mu.Unlock()
		if c.agent.cont {
			return Keyword("continue"), nil
		}
		return Keyword("fail"), nil
	})
	// Nothing to shut down or release: actions run as they are sent.
	t.add("shutdown-agents", 0, 0, func(*thread, []Value) (Value, error) { return nil, nil })
	t.add("release-pending-sends", 0, 0, func(*thread, []Value) (Value, error) { return int64(0), nil })
}
