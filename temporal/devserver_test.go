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

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// devServer starts a Temporal development server (the CLI's start-dev)
// for the test, and returns a client of it. Its SQLite database is a file
// in the test's directory, or in memory with PTC_TEMPORAL_DB=memory (for
// measurements: the server without its disk).
func devServer(t testing.TB) (client.Client, string) {
	t.Helper()
	bin := temporalCLI()
	if bin == "" {
		t.Skip("no temporal CLI (PTC_TEMPORAL_CLI, PATH, $HOME/go/bin, /work/bin): install it with " +
			"go install github.com/temporalio/cli/cmd/temporal@v1.5.1 to run the tests against a real server")
	}
	dir := t.TempDir()
	// A server that exits before it answers (the free port taken again by
	// another process in between, a busy machine) is started again on
	// another port, twice at most.
	for attempt := 1; ; attempt++ {
		c, addr, logText, err := startDevServer(t, bin, dir, attempt)
		if err == nil {
			return c, addr
		}
		if attempt == 3 {
			t.Fatalf("%v:\n%s", err, logText)
		}
		t.Logf("attempt %d: %v; starting it again", attempt, err)
	}
}

// startDevServer starts one dev server on a free port: a client of it, or
// why it did not come up and its log.
func startDevServer(t testing.TB, bin, dir string, attempt int) (client.Client, string, []byte, error) {
	t.Helper()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("server-%d.log", attempt)))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--log-level", "error",
		// The search attributes missions set when StartOptions.SearchAttributes asks for them.
		"--search-attribute", "PtcAgent=Keyword", "--search-attribute", "PtcReason=Keyword",
		"--search-attribute", "PtcTurns=Int", "--search-attribute", "PtcTokens=Int"}
	switch db := os.Getenv("PTC_TEMPORAL_DB"); db {
	case "", "file":
		args = append(args, "--db-filename", filepath.Join(dir, fmt.Sprintf("temporal-%d.db", attempt)))
	case "memory":
	default:
		t.Fatalf("PTC_TEMPORAL_DB=%q: file (the default) or memory", db)
	}
	// More flags for the server, for measurements: PTC_TEMPORAL_DEV_ARGS="--sqlite-pragma synchronous=off".
	args = append(args, strings.Fields(os.Getenv("PTC_TEMPORAL_DEV_ARGS"))...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the dev server: %v", err)
	}
	// exited is closed when the process has ended, waitErr set before: a
	// closed channel is seen by the wait below and by the cleanup alike.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		logFile.Close()
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		c, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, herr := c.CheckHealth(ctx, &client.CheckHealthRequest{})
			cancel()
			if herr == nil {
				t.Cleanup(c.Close)
				return c, addr, nil, nil
			}
			c.Close()
			err = herr
		}
		select {
		case <-exited:
			data, _ := os.ReadFile(logFile.Name())
			return nil, "", data, fmt.Errorf("the dev server exited (%v)", waitErr)
		default:
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile.Name())
			return nil, "", data, fmt.Errorf("the dev server did not come up on %s: %v", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
