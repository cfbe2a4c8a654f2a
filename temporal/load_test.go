package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm"
)

// TestLoad measures missions per second and the 50th and 95th
// percentiles of their completion time: PTC_TEMPORAL_LOAD=1000 short
// missions (two turns, one tool call) over two workers against the dev
// server, then the same missions in-process ((*agent.Agent).Run in
// goroutines, as many in flight). It only runs when PTC_TEMPORAL_LOAD is
// set, and asserts nothing about time. PTC_TEMPORAL_LOAD_INFLIGHT bounds
// the missions in flight (200); PTC_TEMPORAL_LOAD_LATENCY is the model's
// latency per call (a duration, 0: an instant model);
// PTC_TEMPORAL_LOAD_TOOL is how long the tool call takes (0: at once);
// PTC_TEMPORAL_LOAD_WORKERS=process runs the workers in processes of
// their own and reports their CPU apart from the client's;
// PTC_TEMPORAL_LOAD_GZIP=off has the workers' clients send gRPC requests
// uncompressed; PTC_TEMPORAL_LOAD_VERSION=on starts the missions on their
// version's task queue (StartOptions.Version);
// PTC_TEMPORAL_DB=memory runs the server on an in-memory database, and
// PTC_TEMPORAL_DEV_ARGS passes it more flags. It reports the CPU the
// test process (the two workers, and the client that starts and awaits
// the missions) used per mission, and the process's peak heap and
// resident size.
//
//	PTC_TEMPORAL_LOAD=1000 go test -run TestLoad -v ./temporal/
//	PTC_TEMPORAL_LOAD=2000 PTC_TEMPORAL_LOAD_INFLIGHT=2000 PTC_TEMPORAL_LOAD_TOOL=5s go test -run TestLoad -v ./temporal/
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PTC_TEMPORAL_LOAD"))
	if n <= 0 {
		t.Skip("set PTC_TEMPORAL_LOAD to the number of missions to run")
	}
	latency, toolTime, err := loadTimes()
	if err != nil {
		t.Fatal(err)
	}
	inFlight := 200
	if v, _ := strconv.Atoi(os.Getenv("PTC_TEMPORAL_LOAD_INFLIGHT")); v > 0 {
		inFlight = v
	}
	c, addr := freshDevServer(t)
	queue := "ptc-load-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	a, model := loadAgent(toolTime), loadModel(latency)
	// PTC_TEMPORAL_LOAD_WORKERS=process runs the two workers in processes
	// of their own, whose CPU time is then the workers' alone.
	inProcesses := os.Getenv("PTC_TEMPORAL_LOAD_WORKERS") == "process"
	var procs []*exec.Cmd
	var exited []<-chan struct{}
	for i := 0; i < 2; i++ {
		if inProcesses {
			cmd, done := startWorkerProcess(t, addr, queue, "", "", envLoadWorker+"=1")
			procs, exited = append(procs, cmd), append(exited, done)
			continue
		}
		wc, err := client.Dial(loadClientOptions(addr))
		if err != nil {
			t.Fatal(err)
		}
		defer wc.Close()
		w, err := NewWorker(wc, queue, loadWorkerOptions(a, model))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	version := ""
	if os.Getenv("PTC_TEMPORAL_LOAD_VERSION") == "on" {
		version = a.Fingerprint()
	}
	cpu0, _, cpuOK := processCPU()
	heap := sampleHeap()
	durable := runLoad(t, n, inFlight, func(i int) (*agent.Step, error) {
		// Thousands of starts at once can outlast a start's RPC deadline
		// on a busy dev server: a start is tried again, under the same
		// workflow id, and a start that had gone through is attached to.
		id := fmt.Sprintf("%s-%d", queue, i)
		var m *Mission
		for attempt := 1; ; attempt++ {
			var err error
			m, err = Start(ctx, c, "check", StartOptions{TaskQueue: queue, ID: id, Version: version, Input: map[string]any{"id": i}})
			var started *serviceerror.WorkflowExecutionAlreadyStarted
			if errors.As(err, &started) {
				m = Attach(c, id, "")
				break
			}
			if err == nil {
				break
			}
			if attempt == 5 || ctx.Err() != nil {
				return nil, err
			}
		}
		return m.Result(ctx)
	})
	peakHeap := heap()
	cpu1, maxRSS, _ := processCPU()
	var workersCPU time.Duration
	for i, cmd := range procs {
		// The worker stops on SIGINT and exits: its CPU time is final.
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		<-exited[i]
		if ps := cmd.ProcessState; ps != nil {
			workersCPU += ps.UserTime() + ps.SystemTime()
		}
	}
	inProcess := runLoad(t, n, inFlight, func(i int) (*agent.Step, error) {
		return a.Run(ctx, agent.Options{LLM: model, Input: map[string]any{"id": i}})
	})
	db := os.Getenv("PTC_TEMPORAL_DB")
	if db == "" {
		db = "file"
	}
	t.Logf("%d missions (2 turns, 1 tool call of %v each; model latency %v; %d in flight; started on their version's queue: %t)",
		n, toolTime, latency, inFlight, version != "")
	t.Logf("on Temporal, 2 workers, server db %s %s: %s", db, os.Getenv("PTC_TEMPORAL_DEV_ARGS"), durable)
	perMission := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(n) }
	switch {
	case inProcesses:
		t.Logf("the workers' processes: %.2f ms of CPU a mission; the client's: %.2f ms", perMission(workersCPU),
			perMission(cpu1-cpu0))
	case cpuOK:
		t.Logf("the test process (workers and client): %.2f ms of CPU a mission; peak heap %.1f MB, peak RSS %.1f MB",
			perMission(cpu1-cpu0), float64(peakHeap)/(1<<20), float64(maxRSS)/(1<<20))
	}
	t.Logf("in-process: %s", inProcess)
}

// envLoadWorker set has workerMain serve TestLoad's agent.
const envLoadWorker = "PTC_TEMPORAL_TEST_LOAD_WORKER"

// loadTimes are the model's latency and the tool call's time
// (PTC_TEMPORAL_LOAD_LATENCY, PTC_TEMPORAL_LOAD_TOOL).
func loadTimes() (latency, toolTime time.Duration, err error) {
	for _, v := range []struct {
		env string
		to  *time.Duration
	}{{"PTC_TEMPORAL_LOAD_LATENCY", &latency}, {"PTC_TEMPORAL_LOAD_TOOL", &toolTime}} {
		if s := os.Getenv(v.env); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return 0, 0, fmt.Errorf("%s=%q: a duration such as 1s", v.env, s)
			}
			*v.to = d
		}
	}
	return latency, toolTime, nil
}

// loadAgent is TestLoad's agent: a tool call, then the return. A generous
// MissionTimeout: queueing under load must not end missions.
func loadAgent(toolTime time.Duration) *agent.Agent {
	return agent.MustNew(agent.Config{Prompt: "Check item {{id}}.", MaxTurns: 3, MissionTimeout: 10 * time.Minute,
		Tools: map[string]agent.Tool{
			"fetch": {Func: func(ctx context.Context, args *lisp.Map) (any, error) {
				if toolTime > 0 {
					tm := time.NewTimer(toolTime)
					defer tm.Stop()
					select {
					case <-tm.C:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				return map[string]any{"ok": true}, nil
			}},
		}})
}

// loadModel is TestLoad's model: it answers after latency.
func loadModel(latency time.Duration) llm.Model {
	return llm.Func(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if latency > 0 {
			tm := time.NewTimer(latency)
			select {
			case <-tm.C:
			case <-ctx.Done():
				tm.Stop()
				return llm.Response{}, ctx.Err()
			}
		}
		code := `(tool/fetch {:id ctx/id})`
		if req.Turn > 1 {
			code = `(return ctx/id)`
		}
		return llm.Response{Content: "```clojure\n" + code + "\n```"}, nil
	})
}

// loadClientOptions are the options of a load worker's client.
func loadClientOptions(addr string) client.Options {
	copts := client.Options{HostPort: addr, Logger: quietLogger()}
	if os.Getenv("PTC_TEMPORAL_LOAD_GZIP") == "off" {
		// gRPC without gzip: on a local network, compression costs the
		// workers more CPU than the bytes it saves.
		copts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
	return copts
}

func loadWorkerOptions(a *agent.Agent, model llm.Model) WorkerOptions {
	return WorkerOptions{Agents: map[string]*agent.Agent{"check": a}, Model: model,
		Worker: worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8}}
}

// sampleHeap samples the heap in use every 100 ms until the function it
// returns is called, which returns the peak.
func sampleHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				done <- peak
				return
			case <-tk.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}

// loadFigures are a load run's throughput and completion times.
type loadFigures struct {
	rate                 float64 // missions/s
	p50, p95, max, total time.Duration
}

func (f loadFigures) String() string {
	return fmt.Sprintf("%.1f missions/s, p50 %v, p95 %v, max %v, total %v", f.rate, f.p50, f.p95, f.max, f.total)
}

// runLoad runs missions 0..n-1 with run, inFlight at a time, checks that
// mission i returned i, and measures them.
func runLoad(t *testing.T, n, inFlight int, run func(i int) (*agent.Step, error)) loadFigures {
	t.Helper()
	lat := make([]time.Duration, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, inFlight) // missions in flight
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t0 := time.Now()
			step, err := run(i)
			if err == nil && printed(step.Return) != fmt.Sprint(i) {
				err = fmt.Errorf("mission %d returned %s", i, printed(step.Return))
			}
			lat[i] = time.Since(t0)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	total := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	slices.Sort(lat)
	r := func(d time.Duration) time.Duration {
		if d < 10*time.Millisecond {
			return d.Round(10 * time.Microsecond)
		}
		return d.Round(time.Millisecond)
	}
	return loadFigures{rate: float64(n) / total.Seconds(), p50: r(lat[n/2]), p95: r(lat[n*95/100]), max: r(lat[n-1]),
		total: r(total)}
}
