package temporal

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// temporalCLI finds the temporal CLI: $PTC_TEMPORAL_CLI, then PATH, then
// $HOME/go/bin and /work/bin; "" when there is none.
func temporalCLI() string {
	if p := os.Getenv("PTC_TEMPORAL_CLI"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	var dirs []string
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil && len(out) > 1 {
		dirs = append(dirs, filepath.Join(string(out[:len(out)-1]), "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	dirs = append(dirs, "/work/bin")
	for _, d := range dirs {
		p := filepath.Join(d, "temporal")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// devServer returns a client of the package's Temporal development server
// (the CLI's start-dev) and its address: one server for all the tests,
// started by the first that needs it and stopped when they end (TestMain),
// each test on task queues and workflow ids of its own. Its SQLite
// database is a file in a temporary directory, or in memory with
// PTC_TEMPORAL_DB=memory (for measurements: the server without its disk).
func devServer(t testing.TB) (client.Client, string) {
	t.Helper()
	bin := temporalCLI()
	if bin == "" {
		skipNoCLI(t)
	}
	shared.once.Do(func() { shared.srv, shared.err = launchDevServer(bin, t.Logf) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv.client, shared.srv.addr
}

// freshDevServer starts a development server of the test's own, stopped
// when it ends (TestLoad: its figures are those of a server that holds
// nothing else).
func freshDevServer(t testing.TB) (client.Client, string) {
	t.Helper()
	bin := temporalCLI()
	if bin == "" {
		skipNoCLI(t)
	}
	srv, err := launchDevServer(bin, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	return srv.client, srv.addr
}

func skipNoCLI(t testing.TB) {
	t.Helper()
	t.Skip("no temporal CLI (PTC_TEMPORAL_CLI, PATH, $HOME/go/bin, /work/bin): install it with " +
		"go install github.com/temporalio/cli/cmd/temporal@v1.5.1 to run the tests against a real server")
}

// shared is the tests' development server (devServer); stopSharedServer
// stops it.
var shared struct {
	once sync.Once
	srv  *devSrv
	err  error
}

func stopSharedServer() {
	if shared.srv != nil {
		shared.srv.stop()
	}
}

// devSrv is a running development server.
type devSrv struct {
	client client.Client
	addr   string
	stop   func()
}

// launchDevServer starts a development server in a new temporary
// directory. A server that exits before it answers (the free port taken
// again by another process in between, a busy machine) is started again
// on another port, twice at most.
func launchDevServer(bin string, logf func(string, ...any)) (*devSrv, error) {
	dir, err := os.MkdirTemp("", "ptc-temporal-")
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		srv, logText, err := startDevServer(bin, dir, attempt)
		if err == nil {
			stop := srv.stop
			srv.stop = func() { stop(); os.RemoveAll(dir) }
			return srv, nil
		}
		if attempt == 3 {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%v:\n%s", err, logText)
		}
		logf("attempt %d: %v; starting it again", attempt, err)
	}
}

// startDevServer starts one dev server on a free port: the server, or why
// it did not come up and its log.
func startDevServer(bin, dir string, attempt int) (*devSrv, []byte, error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("server-%d.log", attempt)))
	if err != nil {
		return nil, nil, err
	}
	args := []string{"server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--log-level", "error",
		// The search attributes missions set when StartOptions.SearchAttributes asks for them.
		"--search-attribute", "PtcAgent=Keyword", "--search-attribute", "PtcReason=Keyword",
		"--search-attribute", "PtcTurns=Int", "--search-attribute", "PtcTokens=Int",
		"--search-attribute", "PtcQueuedMs=Int"}
	switch db := os.Getenv("PTC_TEMPORAL_DB"); db {
	case "", "file":
		args = append(args, "--db-filename", filepath.Join(dir, fmt.Sprintf("temporal-%d.db", attempt)))
	case "memory":
	default:
		logFile.Close()
		return nil, nil, fmt.Errorf("PTC_TEMPORAL_DB=%q: file (the default) or memory", db)
	}
	// More flags for the server, for measurements: PTC_TEMPORAL_DEV_ARGS="--sqlite-pragma synchronous=off".
	args = append(args, strings.Fields(os.Getenv("PTC_TEMPORAL_DEV_ARGS"))...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, nil, fmt.Errorf("starting the dev server: %w", err)
	}
	// exited is closed when the process has ended, waitErr set before: a
	// closed channel is seen by the wait below and by stop alike.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	kill := func() {
		_ = cmd.Process.Kill()
		<-exited
		logFile.Close()
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		c, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, herr := c.CheckHealth(ctx, &client.CheckHealthRequest{})
			cancel()
			if herr == nil {
				return &devSrv{client: c, addr: addr, stop: func() { c.Close(); kill() }}, nil, nil
			}
			c.Close()
			err = herr
		}
		select {
		case <-exited:
			data, _ := os.ReadFile(logFile.Name())
			kill()
			return nil, data, fmt.Errorf("the dev server exited (%v)", waitErr)
		default:
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile.Name())
			kill()
			return nil, data, fmt.Errorf("the dev server did not come up on %s: %v", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
