package temporal_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/ptc-go/ptc/agent"
	"github.com/ptc-go/ptc/lisp"
	"github.com/ptc-go/ptc/llm/anthropic"
	"github.com/ptc-go/ptc/temporal"
)

// A worker process for Temporal Cloud or a cluster: the connection comes
// from the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_API_KEY or the TEMPORAL_TLS_* certificates, or a profile of
// the TOML file TEMPORAL_CONFIG_FILE), the SDK's logs go through slog at
// Info (its default logger writes DEBUG lines for every task), and the
// worker runs until SIGINT or SIGTERM.
func Example_production() {
	opts, err := envconfig.LoadDefaultClientOptions()
	if err != nil {
		log.Fatal(err)
	}
	opts.Logger = tlog.NewStructuredLogger(slog.New(slog.NewJSONHandler(os.Stderr,
		&slog.HandlerOptions{Level: slog.LevelInfo})))
	c, err := client.Dial(opts)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	model, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5"}) // $ANTHROPIC_API_KEY
	if err != nil {
		log.Fatal(err)
	}
	triage := agent.MustNew(agent.Config{
		Prompt:         "Triage ticket {{ticket}}.",
		Signature:      "(ticket :int) -> {:queue :string}",
		MissionTimeout: 2 * time.Hour, // a durable mission may wait out crashed workers and slow tools (default 60 s)
		Tools: map[string]agent.Tool{"ticket": agent.Tool{Func: func(ctx context.Context, args *lisp.Map) (any, error) {
			return map[string]any{"subject": "refund"}, nil
		}}},
	})
	w, err := temporal.NewWorker(c, "missions", temporal.WorkerOptions{
		Agents: map[string]*agent.Agent{"triage": triage},
		Model:  model,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		log.Fatal(err)
	}
}

// TestEnvConfig checks that the environment variables and the TOML
// profile docs/temporal.md ("Running in production") documents reach the
// client's options through envconfig.
func TestEnvConfig(t *testing.T) {
	dir := t.TempDir()
	toml := filepath.Join(dir, "temporal.toml")
	if err := os.WriteFile(toml, []byte(`
[profile.prod]
address = "prod.a1b2c.tmprl.cloud:7233"
namespace = "prod.a1b2c"
api_key = "key-from-file"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := []string{"TEMPORAL_CONFIG_FILE", "TEMPORAL_PROFILE", "TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE",
		"TEMPORAL_API_KEY", "TEMPORAL_TLS", "TEMPORAL_TLS_SERVER_NAME"}
	tests := []struct {
		name    string
		env     map[string]string
		address string
		ns      string
		apiKey  string
		tls     bool // TLS on (ConnectionOptions.TLS set, not disabled)
		server  string
	}{
		{name: "environment, API key",
			env: map[string]string{"TEMPORAL_ADDRESS": "eu-west-1.aws.api.temporal.io:7233",
				"TEMPORAL_NAMESPACE": "missions.a1b2c", "TEMPORAL_API_KEY": "key-from-env"},
			address: "eu-west-1.aws.api.temporal.io:7233", ns: "missions.a1b2c", apiKey: "key-from-env", tls: true},
		{name: "environment, self-hosted without TLS",
			env:     map[string]string{"TEMPORAL_ADDRESS": "temporal.internal:7233", "TEMPORAL_NAMESPACE": "missions"},
			address: "temporal.internal:7233", ns: "missions"},
		{name: "environment, TLS with a server name",
			env: map[string]string{"TEMPORAL_ADDRESS": "10.0.0.5:7233", "TEMPORAL_NAMESPACE": "missions",
				"TEMPORAL_TLS": "true", "TEMPORAL_TLS_SERVER_NAME": "temporal.internal"},
			address: "10.0.0.5:7233", ns: "missions", tls: true, server: "temporal.internal"},
		{name: "profile of a TOML file",
			env:     map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "prod"},
			address: "prod.a1b2c.tmprl.cloud:7233", ns: "prod.a1b2c", apiKey: "key-from-file", tls: true},
		{name: "the environment overrides the profile",
			env: map[string]string{"TEMPORAL_CONFIG_FILE": toml, "TEMPORAL_PROFILE": "prod",
				"TEMPORAL_NAMESPACE": "staging.a1b2c", "TEMPORAL_API_KEY": "staging-key"},
			address: "prod.a1b2c.tmprl.cloud:7233", ns: "staging.a1b2c", apiKey: "staging-key", tls: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range vars {
				t.Setenv(k, "") // restored after the test
				if v, ok := tt.env[k]; ok {
					t.Setenv(k, v)
				} else {
					os.Unsetenv(k) // unset, not empty: an empty variable clears the profile's value
				}
			}
			if _, ok := tt.env["TEMPORAL_CONFIG_FILE"]; !ok {
				t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(dir, "none.toml")) // not the user's own file
			}
			prof, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if prof.APIKey != tt.apiKey {
				t.Errorf("API key %q, want %q", prof.APIKey, tt.apiKey)
			}
			opts, err := envconfig.LoadDefaultClientOptions()
			if err != nil {
				t.Fatal(err)
			}
			if opts.HostPort != tt.address || opts.Namespace != tt.ns {
				t.Errorf("HostPort %q, Namespace %q; want %q, %q", opts.HostPort, opts.Namespace, tt.address, tt.ns)
			}
			if (opts.Credentials != nil) != (tt.apiKey != "") {
				t.Errorf("Credentials %v with API key %q", opts.Credentials, tt.apiKey)
			}
			tlsOn := opts.ConnectionOptions.TLS != nil && !opts.ConnectionOptions.TLSDisabled
			if tlsOn != tt.tls {
				t.Errorf("TLS on: %v, want %v", tlsOn, tt.tls)
			}
			if tlsOn && opts.ConnectionOptions.TLS.ServerName != tt.server {
				t.Errorf("TLS server name %q, want %q", opts.ConnectionOptions.TLS.ServerName, tt.server)
			}
		})
	}
}
