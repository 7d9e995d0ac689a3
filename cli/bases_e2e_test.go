package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// The planted secrets of the bases tests: a fake key in ~/.ssh/id_rsa and
// a file in ~/Privé (spelled NFC on disk). Neither may reach the model,
// the screen, the log or a gateway client.
const (
	plantedKey    = "FAKE-PRIVATE-KEY-7f3a9c"
	plantedPrive  = "PRIVE-SECRET-2b8e41"
	projContents  = "contents of a.txt"
	nfdPrive      = "Prive\u0301" // "Privé" with a combining accent: NFD
	rulesKeyIdx   = "permissions.rules[0]"
	rulesPriveIdx = "permissions.rules[1]"
	rulesDryIdx   = "permissions.rules[3]"
)

// basesRead is one read_text_file call of the bases tests and what the
// gate must make of it: "" runs (it returns proj/a.txt), else the rule
// that denies it.
type basesRead struct{ id, path, deniedBy string }

// basesReads are relative and ~ spellings of the secrets, all denied, and
// a relative read in the project, allow-listed.
var basesReads = []basesRead{
	{"call_rel", ".ssh/id_rsa", rulesKeyIdx},
	{"call_dot", "./.ssh/id_rsa", rulesKeyIdx},
	{"call_up", "proj/../.ssh/id_rsa", rulesKeyIdx},
	{"call_nfd", nfdPrive + "/secret", rulesPriveIdx},
	{"call_nfd_home", "~/" + nfdPrive + "/secret", rulesPriveIdx},
	{"call_fullwidth", "~\uff0f.ssh\uff0fid_rsa", rulesKeyIdx},
	{"call_zw", ".ss\u200bh/id_rsa", rulesKeyIdx},
	{"call_proj", "proj/a.txt", ""},
}

// basesCall is a call of the bases tests with arguments of its own and
// what the gate must make of it: "" runs (its answer holds want), else
// the rule that denies it.
type basesCall struct {
	id, tool       string
	args           map[string]any
	deniedBy, want string
}

// basesEdit is edit_file's arguments on proj/a.txt with dryRun as given.
func basesEdit(dryRun any) map[string]any {
	return map[string]any{"path": "proj/a.txt", "dryRun": dryRun,
		"edits": []any{map[string]any{"oldText": "contents", "newText": "CHANGED"}}}
}

// basesCalls hide a path where a string-only gate never looked, an
// object's key at any depth, and spell the boolean a rule denies
// (dryRun=false) as a lax validator reads it; edit_file as a dry run
// runs.
var basesCalls = []basesCall{
	{"call_key", "fs__read_text_file", map[string]any{"path": "proj/a.txt",
		"also": map[string]any{"~/.ssh/id_rsa": "x"}}, rulesKeyIdx, ""},
	{"call_key_deep", "fs__read_text_file", map[string]any{"path": "proj/a.txt",
		"also": []any{map[string]any{"to": map[string]any{".ssh/id_rsa": 1}}}}, rulesKeyIdx, ""},
	{"call_lax_str", "fs__edit_file", basesEdit("false"), rulesDryIdx, ""},
	{"call_lax_case", "fs__edit_file", basesEdit("False"), rulesDryIdx, ""},
	{"call_lax_no", "fs__edit_file", basesEdit("no"), rulesDryIdx, ""},
	{"call_lax_0", "fs__edit_file", basesEdit(0), rulesDryIdx, ""},
	{"call_dry", "fs__edit_file", basesEdit(true), "", "CHANGED"},
}

// basesTea is a server-memory call with plain words in it: the "*" deny
// rules must leave it alone.
var basesTea = map[string]any{"entities": []any{map[string]any{"name": "Ada", "entityType": "person",
	"observations": []any{"likes tea"}}}}

// newBasesRig is a prompt rig with server-filesystem ("fs") started on
// $HOME (its argument and working folder, both "~"), read_text_file
// allow-listed, server-memory ("mem", create_entities allowed), ask mode,
// the rules that deny anything under ~/.ssh and ~/Privé, allow
// get_file_info under ~/proj and deny edit_file but as a dry run
// (edit_file allow-listed); and in $HOME the planted key, the Privé
// secret and proj/a.txt. Only the deny rules keep the secrets from a
// read and proj/a.txt from an edit.
func newBasesRig(t *testing.T) (*promptRig, string) {
	t.Helper()
	return newBasesRigOn(t, "~", "~/proj/**", nil)
}

// newBasesRigOn is newBasesRig with server-filesystem on folder (its
// argument and working folder), get_file_info allowed under allow, and
// the roots given (none: nil).
func newBasesRigOn(t *testing.T, folder, allow string, roots []string) (*promptRig, string) {
	t.Helper()
	bin := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	cfg := map[string]any{
		"ollama": map[string]any{"options": map[string]any{"num_ctx": 32768}}, // room for both servers' tools
		"permissions": map[string]any{"mode": "ask", "allow": []string{"mem__create_entities"}, "rules": []any{
			map[string]any{"tool": "*", "args": map[string]any{"*": "~/.ssh/**"}, "decision": "deny"},
			map[string]any{"tool": "*", "args": map[string]any{"*": "~/Privé/**"}, "decision": "deny"},
			map[string]any{"tool": "fs__get_file_info", "args": map[string]any{"path": allow}, "decision": "allow"},
			map[string]any{"tool": "fs__edit_file", "args": map[string]any{"dryRun": false}, "decision": "deny"},
		}},
		"mcpServers": map[string]any{"fs": map[string]any{"command": bin, "args": []string{folder}, "cwd": folder,
			"allow": []string{"read_text_file", "edit_file"}}},
	}
	if roots != nil {
		cfg["roots"] = roots
	}
	r := newPromptRig(t, cfg, true)
	var home string
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	for path, content := range map[string]string{
		".ssh/id_rsa":       "-----BEGIN OPENSSH PRIVATE KEY-----\n" + plantedKey + "\n",
		"proj/a.txt":        projContents + "\n",
		"Priv\u00e9/secret": plantedPrive + "\n",
	} {
		p := filepath.Join(home, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return r, home
}

// basesScript has the model make every call of basesReads and
// basesCalls, get_file_info of proj/a.txt and the tea call in one turn,
// then answer "Done reading.".
func basesScript(fake *ollamatest.Server) {
	var calls []api.ToolCall
	for _, c := range basesReads {
		calls = append(calls, modelCall(c.id, "fs__read_text_file", "path", c.path))
	}
	for _, c := range basesCalls {
		args := api.NewToolCallFunctionArguments()
		for k, v := range c.args {
			args.Set(k, v)
		}
		calls = append(calls, api.ToolCall{ID: c.id, Function: api.ToolCallFunction{Name: c.tool, Arguments: args}})
	}
	calls = append(calls, modelCall("call_info", "fs__get_file_info", "path", "proj/a.txt"),
		modelCall("call_tea", "mem__create_entities", "entities", basesTea["entities"]))
	fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: calls}}}, ollamatest.TextTurn("Done reading."))
}

// modelCall is a tool call of the model with one argument.
func modelCall(id, tool, arg string, v any) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	args.Set(arg, v)
	return api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: tool, Arguments: args}}
}

// checkBasesTold checks what each call answered (by call id): a denied
// call names its rule, the project read holds the file, the dry run its
// diff, get_file_info and the tea call ran.
func checkBasesTold(t *testing.T, told map[string]string, isErr map[string]bool) {
	t.Helper()
	for _, c := range basesReads {
		got := told[c.id]
		switch {
		case c.deniedBy == "" && (!strings.Contains(got, projContents) || isErr[c.id]):
			t.Errorf("%s (%q): told %q, want the project's file", c.id, c.path, got)
		case c.deniedBy != "" && (!strings.Contains(got, "denied") || !strings.Contains(got, c.deniedBy)):
			t.Errorf("%s (%q): told %q, want it denied by %s", c.id, c.path, got, c.deniedBy)
		}
	}
	for _, c := range basesCalls {
		got := told[c.id]
		switch {
		case c.deniedBy == "" && (!strings.Contains(got, c.want) || isErr[c.id]):
			t.Errorf("%s (%s %v): told %q, want it run", c.id, c.tool, c.args, got)
		case c.deniedBy != "" && (!strings.Contains(got, "denied") || !strings.Contains(got, c.deniedBy)):
			t.Errorf("%s (%s %v): told %q, want it denied by %s", c.id, c.tool, c.args, got, c.deniedBy)
		}
	}
	if got := told["call_info"]; strings.Contains(got, "denied") || isErr["call_info"] || !strings.Contains(got, "size") {
		t.Errorf("get_file_info of proj/a.txt, allowed by rules[2] against the server's folder: told %q, want it run", got)
	}
	if got := told["call_tea"]; strings.Contains(got, "denied") || isErr["call_tea"] || !strings.Contains(got, "Ada") {
		t.Errorf("create_entities with plain words: told %q, want it run", got)
	}
}

// projUnchanged fails the test when proj/a.txt under home was edited: no
// edit_file but the dry run may have run.
func projUnchanged(t *testing.T, home string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "proj", "a.txt"))
	if err != nil || string(b) != projContents+"\n" {
		t.Errorf("proj/a.txt holds %q (%v), want it as planted: an edit ran", b, err)
	}
}

// noSecretIn fails the test when where holds a planted secret.
func noSecretIn(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range []string{plantedKey, plantedPrive} {
		if strings.Contains(text, s) {
			t.Errorf("%s holds the planted secret %q", where, s)
		}
	}
}

// noSecretInRig checks the model's every request and every file latch
// wrote under its state folder (the session logs).
func noSecretInRig(t *testing.T, r *promptRig) {
	t.Helper()
	reqs, err := json.Marshal(r.fake.Requests())
	if err != nil {
		t.Fatal(err)
	}
	noSecretIn(t, "a request to the model", string(reqs))
	n := 0
	err = filepath.WalkDir(filepath.Dir(r.state), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		noSecretIn(t, "the state file "+filepath.Base(p), string(b))
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("the state folder: %d files read, %v; want the session's log", n, err)
	}
}

// TestE2EBasesPrompt: latch -p with the real server-filesystem on $HOME,
// read_text_file allow-listed. The model's relative, "./", ".." and NFD
// spellings of ~/.ssh/id_rsa and ~/Privé/secret are denied by the deny
// rules (resolved against the server's folder, as the server reads
// them), and so are a full-width-slash and a zero-width spelling, the
// key as an object's key (at any depth), and edit_file with dryRun
// false spelled "false", "False", "no" or 0; edit_file as a dry run
// runs; get_file_info of proj/a.txt, relative, runs under its allow rule
// (which holds for every folder the server may resolve it against);
// create_entities with "likes tea" runs under the same "*" rules. No
// secret reaches the model, the output or the log, and no edit is made.
func TestE2EBasesPrompt(t *testing.T) {
	t.Parallel()
	r, home := newBasesRig(t)
	basesScript(r.fake)
	res := r.run("", "--model", e2eModel, "-p", "read my files")
	if res.code != 0 || !strings.Contains(res.stdout, "Done reading.") {
		t.Errorf("latch -p: exit %d, stdout %q, want 0 and the answer", res.code, res.stdout)
	}
	told, isErr := toolMessages(r.fake), map[string]bool{} // a tool message carries no error flag
	checkBasesTold(t, told, isErr)
	noSecretIn(t, "-p's output", res.stdout+res.stderr)
	noSecretInRig(t, r)
	if n := r.memNames()["Ada"]; n != 1 {
		t.Errorf("server-memory holds Ada %d times, want 1", n)
	}
	projUnchanged(t, home)
}

// TestE2EBasesChat: the same calls in the chat (the built binary in a
// pty): the same verdicts, no box opens (the allowed ones run, the others
// are denied), no secret is on the terminal, in the model's requests
// or in the log, and no edit is made.
func TestE2EBasesChat(t *testing.T) {
	r, home := newBasesRig(t)
	basesScript(r.fake)
	tm := startLatch(t, r.bin, ptyOptions{Rows: 40, Cols: 160, Host: r.fake.Host(), Env: r.env,
		Args: []string{"--config", r.cfg, "--model", e2eModel}})
	tm.waitScreen(t, 30*time.Second, "fs and mem connected", func(s string) bool {
		return inputRow(s) >= 0 && strings.Contains(statusLine(s), "servers 2/2")
	})
	// A box would hold the turn: the answer shows only if none opened.
	sendPrompt(t, tm, "read my files")
	scr := tm.waitScreen(t, 30*time.Second, "the calls done, unasked", func(s string) bool {
		return strings.Contains(chatText(s), "Done reading.")
	})
	told, isErr := toolMessages(r.fake), map[string]bool{} // a tool message carries no error flag
	checkBasesTold(t, told, isErr)
	noSecretIn(t, "the screen", scr)
	quitAndCheck(t, tm)
	noSecretIn(t, "the terminal's output", string(tm.rawOutput()))
	noSecretInRig(t, r)
	projUnchanged(t, home)
}

// TestE2EBasesServe: the same calls from an MCP client (the official
// TypeScript SDK) through latch serve --stdio: the same verdicts, no
// secret in what the client got or in the log, and no edit made.
func TestE2EBasesServe(t *testing.T) {
	t.Parallel()
	r, home := newBasesRig(t)
	var calls []any
	for _, c := range basesReads {
		calls = append(calls, map[string]any{"name": "fs__read_text_file", "arguments": map[string]any{"path": c.path}})
	}
	for _, c := range basesCalls {
		calls = append(calls, map[string]any{"name": c.tool, "arguments": c.args})
	}
	calls = append(calls, map[string]any{"name": "fs__get_file_info", "arguments": map[string]any{"path": "proj/a.txt"}},
		map[string]any{"name": "mem__create_entities", "arguments": basesTea})
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "calls": calls})
	if res.ConnectError != "" {
		t.Fatalf("connect: %s", res.ConnectError)
	}
	told, isErr := map[string]string{}, map[string]bool{}
	for i, c := range basesReads {
		told[c.id], isErr[c.id] = callText(t, res, i)
	}
	n := len(basesReads)
	for i, c := range basesCalls {
		told[c.id], isErr[c.id] = callText(t, res, n+i)
	}
	n += len(basesCalls)
	told["call_info"], isErr["call_info"] = callText(t, res, n)
	told["call_tea"], isErr["call_tea"] = callText(t, res, n+1)
	checkBasesTold(t, told, isErr)
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	noSecretIn(t, "the gateway client's results", string(out))
	noSecretInRig(t, r)
	projUnchanged(t, home)
}

// TestE2EBasesThroughLink: server-filesystem started on ~/work, a link to
// $HOME, read_text_file allow-listed. The server allows the link and the
// folder it leads to, and reads ".ssh/id_rsa" as $HOME/.ssh/id_rsa: the
// gate, judging it against both, denies it by the ~/.ssh rule, where
// judged against ~/work alone no rule would match and the key would reach
// the model.
func TestE2EBasesThroughLink(t *testing.T) {
	t.Parallel()
	r, home := newBasesRigOn(t, "~/work", "~/work/**", nil)
	if err := os.Symlink(home, filepath.Join(home, "work")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r.fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		modelCall("call_link", "fs__read_text_file", "path", ".ssh/id_rsa")}}}}, ollamatest.TextTurn("Done reading."))
	res := r.run("", "--model", e2eModel, "-p", "read my key")
	if got := toolMessages(r.fake)["call_link"]; !strings.Contains(got, "denied") || !strings.Contains(got, rulesKeyIdx) {
		t.Errorf(".ssh/id_rsa through the link: told %q, want it denied by %s", got, rulesKeyIdx)
	}
	noSecretIn(t, "-p's output", res.stdout+res.stderr)
	noSecretInRig(t, r)
}

// TestE2EBasesFromRoots: server-filesystem started on ~/proj, latch
// offering the root ~: the server takes the root in place of its folder
// and reads ".ssh/id_rsa" as ~/.ssh/id_rsa. The gate counts the roots
// among the bases and denies it; judged against ~/proj alone, no rule
// would match and the allow-listed read would hand the key to the model.
func TestE2EBasesFromRoots(t *testing.T) {
	t.Parallel()
	r, _ := newBasesRigOn(t, "~/proj", "~/proj/**", []string{"~"})
	r.fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		modelCall("call_root", "fs__read_text_file", "path", ".ssh/id_rsa")}}}}, ollamatest.TextTurn("Done reading."))
	res := r.run("", "--model", e2eModel, "-p", "read my key")
	if got := toolMessages(r.fake)["call_root"]; !strings.Contains(got, "denied") || !strings.Contains(got, rulesKeyIdx) {
		t.Errorf(".ssh/id_rsa with the root ~: told %q, want it denied by %s", got, rulesKeyIdx)
	}
	noSecretIn(t, "-p's output", res.stdout+res.stderr)
	noSecretInRig(t, r)
}

// TestE2EBasesRootsLive: in the chat (the built binary in a pty),
// server-filesystem on ~/proj with the root ~/proj; /roots add ~ and
// /roots remove ~/proj leave the server reading in ~ alone. The next call
// is judged against the roots of the moment: ".ssh/id_rsa" is denied by
// the ~/.ssh rule and the key reaches neither the model nor the screen.
func TestE2EBasesRootsLive(t *testing.T) {
	t.Parallel()
	r, _ := newBasesRigOn(t, "~/proj", "~/proj/**", []string{"~/proj"})
	r.fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		modelCall("call_live", "fs__read_text_file", "path", ".ssh/id_rsa")}}}}, ollamatest.TextTurn("Done reading."))
	tm := startLatch(t, r.bin, ptyOptions{Rows: 40, Cols: 160, Host: r.fake.Host(), Env: r.env,
		Args: []string{"--config", r.cfg, "--model", e2eModel}})
	tm.waitScreen(t, 30*time.Second, "fs and mem connected", func(s string) bool {
		return inputRow(s) >= 0 && strings.Contains(statusLine(s), "servers 2/2")
	})
	for _, cmd := range []struct{ line, done string }{
		{"/roots add ~", "root added"}, {"/roots remove ~/proj", "root removed"},
	} {
		sendPrompt(t, tm, cmd.line)
		tm.waitScreen(t, 15*time.Second, cmd.done, func(s string) bool {
			return strings.Contains(chatText(s), cmd.done+":") && strings.Contains(chatText(s), "(2 connected servers told)")
		})
	}
	sendPrompt(t, tm, "read my key")
	scr := tm.waitScreen(t, 30*time.Second, "the read done, unasked", func(s string) bool {
		return strings.Contains(chatText(s), "Done reading.")
	})
	if got := toolMessages(r.fake)["call_live"]; !strings.Contains(got, "denied") || !strings.Contains(got, rulesKeyIdx) {
		t.Errorf(".ssh/id_rsa after /roots add ~: told %q, want it denied by %s", got, rulesKeyIdx)
	}
	noSecretIn(t, "the screen", scr)
	quitAndCheck(t, tm)
	noSecretIn(t, "the terminal's output", string(tm.rawOutput()))
	noSecretInRig(t, r)
}
