package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

// The auth/* scenarios: the suite's mock MCP server answers 401 and its
// mock authorization server approves every authorization request at once
// (it redirects to the redirect URI with a code), so the "browser" here is
// an HTTP client that follows the redirects to latch's loopback listener.
// The program connects, logs in when the server asks for it (as /login
// does), calls the server's test-tool and checks its answer; when the call
// ends the login (the resource moved to another authorization server), it
// logs in again and calls once more.

// authContext is $MCP_CONFORMANCE_CONTEXT: the credentials a scenario
// hands the client.
type authContext struct {
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	PrivateKeyPEM string `json:"private_key_pem"`
	// auth/cross-app-access-complete-flow: the enterprise identity
	// provider, latch's client there and the person's ID token from it.
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	// auth/wif-jwt-bearer: the workload's JWT from its platform.
	ValidJWT string `json:"valid_jwt"`
}

// clientMetadataURL is the client ID metadata document URL the suite
// expects (auth/basic-cimd).
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

func runAuth(url, scenario string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	cfg, err := authConfig(url, scenario)
	if err != nil {
		return err
	}
	m := mcp.New([]mcp.ServerConfig{cfg}, mcp.Options{OpenBrowser: oauthtest.Browse})
	defer m.CloseAll()
	m.Start()
	if _, err := waitSettled(ctx, m); err != nil {
		if err := login(ctx, m); err != nil {
			return err
		}
	}
	tools, err := waitConnected(ctx, m)
	if err != nil {
		return err
	}
	t, ok := findTool(tools, "test-tool")
	if !ok {
		return fmt.Errorf("%s: the server lists no tool test-tool (tools: %v)", scenario, originals(tools))
	}
	res, err := m.Call(ctx, t.Name, map[string]any{}, "")
	if st, _ := m.Status(serverName); err != nil && st.State != mcp.StateConnected {
		// The login stopped working (auth/authorization-server-migration:
		// the resource moved to another authorization server): log in
		// again, as a person would with /login, and call once more.
		if err := login(ctx, m); err != nil {
			return fmt.Errorf("%s: log in again after %q: %v", scenario, st.Summary(), err)
		}
		if _, err := waitConnected(ctx, m); err != nil {
			return err
		}
		res, err = m.Call(ctx, t.Name, map[string]any{}, "")
	}
	if err != nil {
		return fmt.Errorf("%s: call test-tool: %v", scenario, err)
	}
	if res.IsError || !strings.Contains(res.Text, "test") {
		return fmt.Errorf("%s: call test-tool: got %q (isError %v)", scenario, res.Text, res.IsError)
	}
	return nil
}

// login logs in as /login does, and once more when latch then says the
// server's authorization server is now another one (the resource moved
// right after the first login: auth/authorization-server-migration), as
// a person reading that would.
func login(ctx context.Context, m *mcp.Manager) error {
	err := m.Login(ctx, serverName)
	if st, _ := m.Status(serverName); err != nil && st.State == mcp.StateAuthExpired &&
		strings.Contains(st.Reason, "authorization server is now") {
		err = m.Login(ctx, serverName)
	}
	return err
}

// authConfig is the server's config for a scenario: OAuth, a client ID
// metadata document URL, and the scenario's client credentials.
func authConfig(url, scenario string) (mcp.ServerConfig, error) {
	cfg := mcp.ServerConfig{Name: serverName, Transport: mcp.TransportHTTP, URL: url, Auth: mcp.AuthOAuth,
		ClientMetadataURL: clientMetadataURL, Store: mcp.StoreMemory,
		Timeout: 15 * time.Second, ConnectTimeout: 10 * time.Second}
	var c authContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return cfg, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	cfg.ClientID, cfg.ClientSecret = c.ClientID, c.ClientSecret
	cfg.DPoP = strings.HasPrefix(scenario, "auth/dpop") // latch's opt-in "dpop": true
	if strings.HasPrefix(scenario, "auth/client-credentials-") {
		cfg.Grant = mcp.GrantClientCredentials
	}
	if c.IDPTokenEndpoint != "" {
		cfg.Grant, cfg.IDPTokenURL, cfg.IDPClientID, cfg.IDToken = mcp.GrantEnterprise, c.IDPTokenEndpoint, c.IDPClientID, c.IDPIDToken
	}
	if c.ValidJWT != "" {
		cfg.Grant, cfg.WorkloadToken = mcp.GrantWorkload, c.ValidJWT
	}
	if c.PrivateKeyPEM != "" {
		dir, err := os.MkdirTemp("", "latch-conformance-")
		if err != nil {
			return cfg, err
		}
		cfg.ClientKeyFile = filepath.Join(dir, "key.pem")
		if err := os.WriteFile(cfg.ClientKeyFile, []byte(c.PrivateKeyPEM), 0o600); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// waitSettled waits until the server is connected, or connecting ended
// otherwise (an error saying how).
func waitSettled(ctx context.Context, m *mcp.Manager) (mcp.Status, error) {
	for {
		st, err := m.Status(serverName)
		if err != nil {
			return st, err
		}
		switch st.State {
		case mcp.StateConnected:
			return st, nil
		case mcp.StateFailed, mcp.StateDisconnected, mcp.StateAuthExpired:
			return st, fmt.Errorf("server %s", st.Summary())
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("server not connected in time: %s", st.Summary())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
