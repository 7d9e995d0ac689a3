// Package ollamatest is a fake Ollama server for tests: v0.17.4 by
// default, or v0.32.15 (see [NewAs] and versions.go for what differs).
//
// It speaks the same wire protocol as a real server (see docs/OLLAMA.md,
// which says how each fact was established) and is deliberately exactly as
// unfriendly:
//
//   - errors come before any stream line as application/json {"error":"…"}
//     with the real status codes and messages (400 "model is required",
//     404 "model 'x' not found", 400 "\"x\" does not support thinking",
//     400 "registry.ollama.ai/library/x:latest does not support tools",
//     500 "option \"num_predict\" must be of type integer", …);
//   - a mid-stream failure is a 200 stream that ends with an {"error":"…"}
//     line, which the api client turns into a plain error;
//   - a cut stream or a client that goes away ends without a final line,
//     which makes api.Client.Chat return nil (check the last Done!);
//   - thinking is ON by default for models with the "thinking" capability;
//   - a tool call for a tool the request did not offer arrives as JSON text
//     in message.content, not as tool_calls;
//   - router errors are text/plain "404 page not found" /
//     "405 method not allowed";
//   - /api/embed answers a model with the "embedding" capability with
//     deterministic vectors (see [Vector]); any other model gets 501
//     "this model does not support embeddings" (see embed.go);
//   - a model whose blob is missing ([Model.MissingBlob]) is listed, but
//     /api/show says 404 "model 'x' not found" and /api/chat 400
//     "\"x\" does not support chat".
//
// Each /api/chat request that passes validation consumes one scripted [Turn]
// (see [Server.Script]); when the queue is empty the default turn answers
// (see [Server.SetDefault]). Requests that fail validation, and load/unload
// requests (empty messages), do not consume a turn.
package ollamatest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// DefaultNumCtx is the context a request without options.num_ctx runs
// with: what a real server without a GPU picks, whatever the model was
// trained for (docs/OLLAMA.md, "Context length").
const DefaultNumCtx = 4096

// Model describes one installed model of the fake server.
type Model struct {
	// Name is the model name, e.g. "qwen3:8b". A name without a tag gets
	// ":latest", as with a real server: Model{Name: "tiny"} is listed as
	// "tiny:latest" and answers to "tiny" and "tiny:latest". Names are
	// matched case-insensitively, and "qwen3" does NOT match "qwen3:8b".
	Name string
	// Size is the size in bytes reported by /api/tags.
	Size int64
	// Family, ParameterSize and QuantizationLevel fill api.ModelDetails
	// (Family defaults to "llama").
	Family, ParameterSize, QuantizationLevel string
	// Capabilities are "completion", "tools", "thinking", "vision", …;
	// empty means just "completion".
	Capabilities []string
	// ContextLength is reported in /api/show model_info as
	// "<family>.context_length" (default 32768).
	ContextLength int
	// ThinkLevels makes the model accept the string think values
	// "low"/"medium"/"high" (gpt-oss style). Without it, a string think value
	// on a thinking model is rejected with 400
	// `think value "high" is not supported for this model`, like a real
	// server does for every model that does not use the harmony parser.
	ThinkLevels bool
	// MissingBlob makes the model one whose manifest is installed but whose
	// model blob (the GGUF weights) is missing: an interrupted pull, or a
	// blob removed by hand or by a prune. A real v0.17.4 server then:
	//
	//   - lists it in /api/tags as usual (ListHandler reads only the
	//     manifest and the config blob);
	//   - answers /api/show with 404 {"error":"model 'NAME' not found"}, NAME
	//     as the request wrote it (GetModelInfo → getModelData →
	//     llm.LoadModel, whose os.Stat error passes os.IsNotExist in
	//     ShowHandler); a blob that is there but unreadable gives 500;
	//   - answers /api/chat, with or without tools, and a load request (no
	//     messages) with 400 {"error":"\"NAME\" does not support chat"}:
	//     Model.Capabilities cannot open the GGUF, so "completion" is
	//     missing and scheduleRunner fails with errCapabilityCompletion. The
	//     think check comes first (its capability comes from the template,
	//     which is there), and an unload (keep_alive 0, no messages) still
	//     answers 200.
	MissingBlob bool
}

// Chunk is one NDJSON line of a streamed reply, before the final line.
type Chunk struct {
	// Content is the content delta.
	Content string
	// Thinking is the thinking delta. It is sent only when thinking is on
	// for the request: the model has the "thinking" capability and the
	// request did not say think:false. Otherwise it is dropped (and a chunk
	// left empty by that is dropped altogether).
	Thinking string
	// ToolCalls are whole calls, as the real server sends them. Each call
	// without an ID gets "call_" + 8 random [a-z0-9], and Function.Index is
	// set to the call's position in the reply (0, 1, …) like the real parser
	// does. A call to a tool the request did not offer is sent as JSON text
	// {"name":…,"arguments":…} appended to Content instead, as a real
	// server does.
	ToolCalls []api.ToolCall
}

// Turn is how the server answers one /api/chat request.
type Turn struct {
	// Chunks are the stream lines, in order.
	Chunks []Chunk
	// Delay is slept before each chunk (slow tokens); chunk i is sent
	// Delay*(i+1) after the reply starts, so a 1ms delay really gives
	// ~1000 chunks/s (sooner if the client fell behind). The response headers
	// are sent with the first chunk, so a client that gives up during the
	// first delay gets an error from Chat, and one that gives up later gets
	// nil (api v0.17.4 quirk).
	Delay time.Duration
	// DoneReason is the final line's done_reason (default "stop"; "length"
	// when the request's num_predict cut the chunks short).
	DoneReason string

	// Status, if non-zero, makes the server reply with this status and
	// {"error": Error} before any stream line (application/json); Error
	// defaults to the lower-cased status text. The api client returns an
	// api.StatusError (api.AuthorizationError for 401).
	Status int
	// Error is the error message. With Status it is the error body. Without
	// Status it is sent as a mid-stream error: after ErrorAfter chunks the
	// line {"error": Error} ends the stream (status stays 200). With
	// ErrorAfter == 0 (or no chunks), nothing has been written yet, so the
	// reply is a 500 with {"error": Error}, as a real server does.
	Error string
	// ErrorAfter is the number of chunks sent before the error line (see
	// Error). If the turn has fewer chunks, the error line comes after the
	// last one, in place of the final line.
	ErrorAfter int
	// CutAfter, if > 0, closes the connection after this many chunks: no
	// final line, no error line (the api client's Chat then returns nil).
	// If the turn has fewer chunks, the cut comes after the last one; with
	// no chunk sent at all, the client gets a transport error (EOF) instead.
	// It is checked before ErrorAfter.
	CutAfter int
	// EvalCount overrides eval_count on the final line (default: the number
	// of chunks sent). The durations are always plausible: eval_duration is
	// the measured streaming time when Delay > 0, else 2ms per token.
	EvalCount int
}

// Server is a running fake Ollama server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL of the server, e.g. "http://127.0.0.1:PORT".
	URL string

	ts      *httptest.Server
	version string // V0174 or V03215
	models  []*entry
	mtime   time.Time

	closing context.Context
	stop    context.CancelFunc

	mu        sync.Mutex
	queue     []Turn
	def       Turn
	raw       [][]byte
	cancelled int
	changed   chan struct{} // closed and replaced whenever raw or cancelled change
	loaded    map[*entry]time.Time
	numCtx    map[*entry]int // the context of each loaded runner
	embedded  []string       // every input /api/embed embedded, in order (embed.go)
	shows     int            // /api/show requests answered
	routes    []route        // requests answered apart from the queue (route.go)
}

type entry struct {
	Model
	name   model.Name
	short  string // "qwen3:8b"
	digest string
}

// New starts a fake server on 127.0.0.1 with a random port. It panics if a
// model name is invalid.
func New(models ...Model) *Server { return NewAs(V0174, models...) }

// NewAs is New for a server that answers as the given Ollama version
// (V0174 or V03215); it panics on another.
func NewAs(version string, models ...Model) *Server {
	if !slices.Contains(Versions, version) {
		panic("ollamatest: no such version " + version)
	}
	s, err := newAt("127.0.0.1:0", version, models)
	if err != nil {
		panic(err)
	}
	return s
}

// NewAt starts a fake server listening on addr (e.g. "127.0.0.1:0" or
// "127.0.0.1:11434").
func NewAt(addr string, models ...Model) (*Server, error) {
	return newAt(addr, V0174, models)
}

// NewAtAs is NewAt for a server that answers as the given Ollama version.
func NewAtAs(addr, version string, models ...Model) (*Server, error) {
	if !slices.Contains(Versions, version) {
		return nil, fmt.Errorf("ollamatest: no such version %q (%s)", version, strings.Join(Versions, ", "))
	}
	return newAt(addr, version, models)
}

func newAt(addr, version string, models []Model) (*Server, error) {
	s := &Server{
		version: version,
		mtime:   time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second),
		def:     TextTurn("Hello from ollamatest."),
		changed: make(chan struct{}),
		loaded:  map[*entry]time.Time{},
		numCtx:  map[*entry]int{},
	}
	for _, m := range models {
		n := model.ParseName(m.Name)
		if !n.IsValid() {
			return nil, fmt.Errorf("ollamatest: invalid model name %q", m.Name)
		}
		if m.Family == "" {
			m.Family = "llama"
		}
		if len(m.Capabilities) == 0 {
			m.Capabilities = []string{"completion"}
		}
		if m.ContextLength == 0 {
			m.ContextLength = 32768
		}
		sum := sha256.Sum256([]byte(n.String()))
		s.models = append(s.models, &entry{Model: m, name: n, short: n.DisplayShortest(), digest: hex.EncodeToString(sum[:])})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.closing, s.stop = context.WithCancel(context.Background())
	s.ts = httptest.NewUnstartedServer(s)
	_ = s.ts.Listener.Close() // replaced by ln before it ever served
	s.ts.Listener = ln
	s.ts.Start()
	s.URL = s.ts.URL
	return s, nil
}

// Close aborts the streams still running (their connections are cut, as if
// the server died) and shuts the server down.
func (s *Server) Close() {
	s.stop()
	s.ts.Close()
}

// Client returns a real api.Client talking to this server.
func (s *Server) Client() *api.Client {
	u, err := url.Parse(s.URL)
	if err != nil {
		panic(err)
	}
	return api.NewClient(u, s.ts.Client())
}

// HTTPClient is the HTTP client Client uses, for requests of one's own.
func (s *Server) HTTPClient() *http.Client { return s.ts.Client() }

// Shows reports how many /api/show requests the server has answered.
func (s *Server) Shows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shows
}

// Host returns "127.0.0.1:PORT", usable as OLLAMA_HOST.
func (s *Server) Host() string {
	return strings.TrimPrefix(s.URL, "http://")
}

// Script queues turns; each /api/chat request that passes validation
// consumes one, in order.
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, turns...)
}

// SetDefault sets the turn used when the queue is empty (initially
// TextTurn("Hello from ollamatest.")).
func (s *Server) SetDefault(t Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = t
}

// Requests returns every /api/chat request whose body decoded, in arrival
// order, including those that then failed validation. Each call returns
// fresh copies.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	raw := slices.Clone(s.raw)
	s.mu.Unlock()
	out := make([]api.ChatRequest, 0, len(raw))
	for _, b := range raw {
		var body chatBody
		_ = json.NewDecoder(bytes.NewReader(b)).Decode(&body)
		var v any
		if json.Unmarshal(body.Think, &v) == nil && v != nil {
			body.ChatRequest.Think = &api.ThinkValue{Value: v}
		}
		out = append(out, body.ChatRequest)
	}
	return out
}

// WaitRequests waits until at least n requests have been recorded or the
// timeout passes, and returns Requests().
func (s *Server) WaitRequests(n int, timeout time.Duration) []api.ChatRequest {
	s.wait(timeout, func() bool { return len(s.raw) >= n })
	return s.Requests()
}

// Cancelled reports how many chat replies ended because the client went
// away (request context done or write failed). The count is updated by the
// server goroutine, shortly after the client gives up: use WaitCancelled to
// wait for it.
func (s *Server) Cancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// WaitCancelled waits until Cancelled() >= n or the timeout passes, and
// returns Cancelled().
func (s *Server) WaitCancelled(n int, timeout time.Duration) int {
	s.wait(timeout, func() bool { return s.cancelled >= n })
	return s.Cancelled()
}

// wait waits until cond (called with s.mu held) is true or timeout passes.
func (s *Server) wait(timeout time.Duration, cond func() bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) record(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = append(s.raw, b)
	s.notifyLocked()
}

func (s *Server) countCancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled++
	s.notifyLocked()
}

func (s *Server) nextTurn() Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		t := s.queue[0]
		s.queue = s.queue[1:]
		return t
	}
	return s.def
}

// load marks the model loaded and returns a plausible load_duration: a few
// hundred ms the first time, ~2ms while it stays loaded.
func (s *Server) load(e *entry, keepAlive *api.Duration, numCtx int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	exp, ok := s.loaded[e]
	d := 2*time.Millisecond + time.Duration(rand.IntN(500))*time.Microsecond
	// Another context size reloads the runner.
	if !ok || (!exp.IsZero() && now.After(exp)) || s.numCtx[e] != numCtx {
		d = 250*time.Millisecond + time.Duration(rand.IntN(100_000))*time.Microsecond
	}
	ka := 5 * time.Minute
	if keepAlive != nil {
		ka = keepAlive.Duration
	}
	s.numCtx[e] = numCtx
	switch {
	case ka < 0 || ka > 100*365*24*time.Hour: // the api turns a negative keep_alive into MaxInt64
		s.loaded[e] = time.Time{} // forever
	case ka == 0:
		delete(s.loaded, e)
	default:
		s.loaded[e] = now.Add(ka)
	}
	return d
}

func (s *Server) unload(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.loaded, e)
}

func (s *Server) find(n model.Name) *entry {
	for _, e := range s.models {
		if e.name.EqualFold(n) {
			return e
		}
	}
	return nil
}

func (e *entry) has(c string) bool { return slices.Contains(e.Capabilities, c) }

func (e *entry) details() api.ModelDetails {
	return api.ModelDetails{
		Format:            "gguf",
		Family:            e.Family,
		Families:          []string{e.Family},
		ParameterSize:     e.ParameterSize,
		QuantizationLevel: e.QuantizationLevel,
	}
}

// ---------------------------------------------------------------------------
// routing

type handler func(*Server, http.ResponseWriter, *http.Request)

func notImplemented(s *Server, w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusInternalServerError, jsonUTF8, errBody("ollamatest: "+r.Method+" "+r.URL.Path+" is not implemented"))
}

// routes mirrors the routes of server/routes.go, so that a wrong method on
// a known path gives 405 rather than 404.
var routes = map[string]map[string]handler{
	"/":                    {http.MethodHead: (*Server).handleRoot, http.MethodGet: (*Server).handleRoot},
	"/api/version":         {http.MethodHead: (*Server).handleVersion, http.MethodGet: (*Server).handleVersion},
	"/api/tags":            {http.MethodHead: (*Server).handleTags, http.MethodGet: (*Server).handleTags},
	"/api/show":            {http.MethodPost: (*Server).handleShow},
	"/api/chat":            {http.MethodPost: (*Server).handleChat},
	"/api/ps":              {http.MethodGet: (*Server).handlePs},
	"/api/status":          {http.MethodGet: notImplemented},
	"/api/pull":            {http.MethodPost: notImplemented},
	"/api/push":            {http.MethodPost: notImplemented},
	"/api/delete":          {http.MethodDelete: notImplemented},
	"/api/create":          {http.MethodPost: notImplemented},
	"/api/copy":            {http.MethodPost: notImplemented},
	"/api/generate":        {http.MethodPost: notImplemented},
	"/api/embed":           {http.MethodPost: (*Server).handleEmbed},
	"/api/embeddings":      {http.MethodPost: notImplemented},
	"/api/me":              {http.MethodPost: notImplemented},
	"/api/signout":         {http.MethodPost: notImplemented},
	"/v1/chat/completions": {http.MethodPost: notImplemented},
	"/v1/completions":      {http.MethodPost: notImplemented},
	"/v1/embeddings":       {http.MethodPost: notImplemented},
	"/v1/models":           {http.MethodGet: notImplemented},
	"/v1/responses":        {http.MethodPost: notImplemented},
	"/v1/messages":         {http.MethodPost: notImplemented},
	"/api/experimental/aliases": {
		http.MethodGet: notImplemented, http.MethodPost: notImplemented, http.MethodDelete: notImplemented,
	},
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := routes[r.URL.Path]
	if !ok {
		writePlain(w, http.StatusNotFound, "404 page not found")
		return
	}
	h, ok := methods[r.Method]
	if !ok {
		writePlain(w, http.StatusMethodNotAllowed, "405 method not allowed")
		return
	}
	h(s, w, r)
}

const (
	jsonUTF8 = "application/json; charset=utf-8" // gin's c.JSON
	jsonBare = "application/json"                // streamResponse's early error
	ndjson   = "application/x-ndjson"
)

func writePlain(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body) // a client that went away is no error of the fake's
}

func errBody(msg string) map[string]string { return map[string]string{"error": msg} }

func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"ollamatest: marshal failed"}`)
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client that went away is no error of the fake's
}

func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "Ollama is running")
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jsonUTF8, map[string]string{"version": s.version})
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	models := []any{}
	for _, e := range s.models {
		models = append(models, s.tagsEntry(e))
	}
	writeJSON(w, http.StatusOK, jsonUTF8, map[string]any{"models": models})
}

func (s *Server) handlePs(w http.ResponseWriter, r *http.Request) {
	resp := api.ProcessResponse{Models: []api.ProcessModelResponse{}}
	now := time.Now()
	s.mu.Lock()
	for _, e := range s.models {
		exp, ok := s.loaded[e]
		if !ok || (!exp.IsZero() && now.After(exp)) {
			continue
		}
		if exp.IsZero() {
			exp = now.Add(100 * 365 * 24 * time.Hour)
		}
		resp.Models = append(resp.Models, api.ProcessModelResponse{
			Name: e.short, Model: e.short, Size: e.Size, Digest: e.digest, Details: e.details(),
			ExpiresAt: exp, SizeVRAM: e.Size, ContextLength: s.numCtx[e],
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, jsonUTF8, resp)
}

func readJSON(r *http.Request, v any) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(v); errors.Is(err, io.EOF) {
		return nil, errors.New("missing request body")
	} else if err != nil {
		return nil, err
	}
	return b, nil
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.shows++
	s.mu.Unlock()
	var req api.ShowRequest
	if _, err := readJSON(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, jsonUTF8, errBody(err.Error()))
		return
	}
	if req.Model == "" {
		req.Model = req.Name //nolint:staticcheck // old clients still send the deprecated name field, as real Ollama accepts
	}
	if req.Model == "" {
		writeJSON(w, http.StatusBadRequest, jsonUTF8, errBody("model is required"))
		return
	}
	n := model.ParseName(req.Model)
	if !n.IsValid() {
		writeJSON(w, http.StatusInternalServerError, jsonUTF8, errBody(model.Unqualified(n).Error()))
		return
	}
	e := s.find(n)
	if e == nil || e.MissingBlob {
		name := req.Model
		if s.newer() {
			// v0.32.15 names the model as it resolved it (server/routes.go,
			// ShowHandler: req.Model = name.DisplayShortest(); observed:
			// "model 'nosuch:latest' not found").
			name = n.DisplayShortest()
		}
		writeJSON(w, http.StatusNotFound, jsonUTF8, errBody(fmt.Sprintf("model '%s' not found", name)))
		return
	}
	caps := make([]model.Capability, len(e.Capabilities))
	for i, c := range e.Capabilities {
		caps[i] = model.Capability(c)
	}
	resp := api.ShowResponse{
		Template:   "{{ .Prompt }}",
		Parameters: "temperature 0.7",
		Details:    e.details(),
		ModelInfo: map[string]any{
			"general.architecture":             e.Family,
			"general.parameter_count":          8_000_000_000,
			e.Family + ".context_length":       e.ContextLength,
			e.Family + ".embedding_length":     4096,
			e.Family + ".block_count":          36,
			e.Family + ".attention.head_count": 32,
		},
		Capabilities: caps,
		ModifiedAt:   s.mtime,
	}
	writeJSON(w, http.StatusOK, jsonUTF8, resp)
}

// ---------------------------------------------------------------------------
// /api/chat

// knownOptions are the json names of api.Options (unknown options are
// ignored by the real server, with a log line we don't want in tests).
var knownOptions = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[api.Options]()) {
		if tag := strings.Split(f.Tag.Get("json"), ",")[0]; tag != "" && tag != "-" {
			m[tag] = true
		}
	}
	return m
}()

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var body chatBody
	raw, err := readJSON(r, &body)
	if err == nil {
		s.record(raw)
		body.ChatRequest.Think, err = s.parseThink(body.Think)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, jsonUTF8, errBody(err.Error()))
		return
	}
	req := body.ChatRequest
	fail := func(status int, msg string) { writeJSON(w, status, jsonUTF8, errBody(msg)) }
	e, status, msg := s.chatModel(&req)
	if status != 0 {
		fail(status, msg)
		return
	}
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		s.unload(e)
		writeDone(w, &req, "unload")
		return
	}
	opts, status, msg := chatCapabilities(e, &req)
	if status != 0 {
		fail(status, msg)
		return
	}
	numCtx := DefaultNumCtx
	if _, set := req.Options["num_ctx"]; set && opts.NumCtx > 0 {
		numCtx = opts.NumCtx
	}
	loadDur := s.load(e, req.KeepAlive, numCtx)
	if len(req.Messages) == 0 {
		writeDone(w, &req, "load")
		return
	}
	if s.thinkLevelRefused(e, req.Think) {
		fail(http.StatusBadRequest, fmt.Sprintf("think value %q is not supported for this model", req.Think.String()))
		return
	}
	// A prompt longer than the context is cut silently (no error, and
	// prompt_eval_count says what was kept), or refused (versions.go).
	kept, status, msg := s.fitPrompt(&req, opts, promptTokens(&req), lastTokens(&req), numCtx)
	if status != 0 {
		fail(status, msg)
		return
	}
	turn := s.turnFor(&req) // route.go
	stream := req.Stream == nil || *req.Stream
	if turn.Status != 0 {
		writeScriptedError(w, turn, stream)
		return
	}
	g := &gen{
		s: s, w: w, ctx: r.Context(), req: &req, turn: turn,
		msgs:       plan(&req, e, turn),
		doneReason: cmp.Or(turn.DoneReason, "stop"),
	}
	if opts.NumPredict > 0 && len(g.msgs) > opts.NumPredict {
		g.msgs = g.msgs[:opts.NumPredict]
		g.doneReason = "length"
	}
	g.promptEval = kept
	g.loadDur = loadDur
	g.start = start
	if stream {
		g.stream()
	} else {
		g.aggregate()
	}
}

// chatModel finds the model a chat request names, or says why not, as
// Ollama does: a status and a message (status 0: found).
func (s *Server) chatModel(req *api.ChatRequest) (*entry, int, string) {
	if req.TopLogprobs < 0 || req.TopLogprobs > 20 {
		return nil, http.StatusBadRequest, "top_logprobs must be between 0 and 20"
	}
	name := model.ParseName(req.Model)
	if !name.IsValid() {
		return nil, http.StatusBadRequest, "model is required"
	}
	e := s.find(name)
	if e == nil {
		return nil, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model)
	}
	return e, 0, ""
}

// chatCapabilities checks what a request asks of the model (thinking,
// chat, tools, options) and returns its options, or why not, as Ollama
// does (status 0: fine). Thinking is turned on when the request does not
// say, as Ollama does for a model that can think.
func chatCapabilities(e *entry, req *api.ChatRequest) (api.Options, int, string) {
	opts := api.DefaultOptions()
	if e.has("thinking") {
		if req.Think == nil {
			req.Think = &api.ThinkValue{Value: true}
		}
	} else if thinkOn(req.Think) {
		return opts, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model)
	}
	if !e.has("completion") || e.MissingBlob {
		return opts, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model)
	}
	if len(req.Tools) > 0 && !e.has("tools") {
		return opts, http.StatusBadRequest, e.name.String() + " does not support tools"
	}
	known := map[string]any{}
	for k, v := range req.Options {
		if knownOptions[k] {
			known[k] = v
		}
	}
	if err := opts.FromMap(known); err != nil {
		return opts, http.StatusInternalServerError, err.Error()
	}
	return opts, 0, ""
}

// writeDone answers a load or unload request (no messages) at once.
func writeDone(w http.ResponseWriter, req *api.ChatRequest, reason string) {
	writeJSON(w, http.StatusOK, jsonUTF8, api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(),
		Message: api.Message{Role: "assistant"}, Done: true, DoneReason: reason,
	})
}

// writeScriptedError answers with a turn's scripted error, before any
// stream line, as Ollama does.
func writeScriptedError(w http.ResponseWriter, turn Turn, stream bool) {
	msg := turn.Error
	if msg == "" {
		msg = strings.ToLower(http.StatusText(turn.Status))
	}
	ct := jsonBare
	if !stream {
		ct = jsonUTF8
	}
	writeJSON(w, turn.Status, ct, errBody(msg))
}

// plan turns the scripted chunks into the messages actually sent.
func plan(req *api.ChatRequest, e *entry, t Turn) []api.Message {
	thinking := e.has("thinking") && thinkOn(req.Think)
	offered := map[string]bool{}
	for _, tool := range req.Tools {
		offered[tool.Function.Name] = true
	}
	var out []api.Message
	index := 0
	for _, c := range t.Chunks {
		m := api.Message{Role: "assistant", Content: c.Content}
		if thinking {
			m.Thinking = c.Thinking
		}
		for _, tc := range c.ToolCalls {
			if !offered[tc.Function.Name] {
				b, _ := json.Marshal(struct {
					Name      string                        `json:"name"`
					Arguments api.ToolCallFunctionArguments `json:"arguments"`
				}{tc.Function.Name, tc.Function.Arguments})
				m.Content += string(b)
				continue
			}
			if tc.ID == "" {
				tc.ID = toolCallID()
			}
			tc.Function.Index = index
			index++
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		if m.Content == "" && m.Thinking == "" && len(m.ToolCalls) == 0 {
			continue
		}
		out = append(out, m)
	}
	return out
}

func toolCallID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return "call_" + string(b)
}

// promptTokens is a plausible prompt_eval_count.
func promptTokens(req *api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += 4 + len(split(m.Content)) + len(split(m.Thinking))
		for _, tc := range m.ToolCalls {
			n += 8 + len(split(tc.Function.Arguments.String()))
		}
	}
	if len(req.Tools) > 0 {
		n += 20 + len(split(req.Tools.String()))
	}
	return n
}

// gen writes one chat reply.
type gen struct {
	s          *Server
	w          http.ResponseWriter
	ctx        context.Context
	req        *api.ChatRequest
	turn       Turn
	msgs       []api.Message
	doneReason string
	start      time.Time
	loadDur    time.Duration
	promptEval int
	evalStart  time.Time
}

var errGone = errors.New("client gone")

// pause sleeps until chunk i is due (i < 0: not at all), returning errGone
// if the client went away, and aborting the connection if the server is
// closing. Chunk i is due Delay*(i+1) after the reply started, so timer
// overhead does not add up over a long stream.
func (g *gen) pause(i int) error {
	if d := time.Until(g.evalStart.Add(g.turn.Delay * time.Duration(i+1))); i >= 0 && g.turn.Delay > 0 && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-g.ctx.Done():
		case <-g.s.closing.Done():
		}
	}
	if g.s.closing.Err() != nil {
		panic(http.ErrAbortHandler)
	}
	if g.ctx.Err() != nil {
		return errGone
	}
	return nil
}

// events returns how many chunks are sent, and what happens after them:
// "cut", "error" or "" (the final line).
func (g *gen) events() (int, string) {
	n := len(g.msgs)
	switch {
	case g.turn.CutAfter > 0:
		return min(n, g.turn.CutAfter), "cut"
	case g.turn.Error != "":
		return min(n, g.turn.ErrorAfter), "error"
	}
	return n, ""
}

func (g *gen) final() api.ChatResponse {
	evalCount := len(g.msgs)
	if g.turn.EvalCount > 0 {
		evalCount = g.turn.EvalCount
	}
	evalDur := time.Duration(evalCount) * 2 * time.Millisecond
	if g.turn.Delay > 0 {
		evalDur = max(time.Since(g.evalStart), time.Microsecond)
	}
	promptDur := time.Duration(g.promptEval)*150*time.Microsecond + 3*time.Millisecond
	total := g.loadDur + promptDur + evalDur + time.Millisecond
	total = max(total, time.Since(g.start))
	return api.ChatResponse{
		Model:      g.req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: g.doneReason,
		Metrics: api.Metrics{
			TotalDuration:      total,
			LoadDuration:       g.loadDur,
			PromptEvalCount:    g.promptEval,
			PromptEvalDuration: promptDur,
			EvalCount:          evalCount,
			EvalDuration:       evalDur,
		},
	}
}

func (g *gen) stream() {
	n, after := g.events()
	flusher, _ := g.w.(http.Flusher)
	written := 0
	g.evalStart = time.Now()
	line := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if written == 0 {
			g.w.Header().Set("Content-Type", ndjson)
			g.w.WriteHeader(http.StatusOK)
		}
		if _, err := g.w.Write(append(b, '\n')); err != nil {
			return errGone
		}
		written++
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	for i := range n {
		if err := g.pause(i); err != nil {
			g.s.countCancel()
			return
		}
		resp := api.ChatResponse{Model: g.req.Model, CreatedAt: time.Now().UTC(), Message: g.msgs[i]}
		if err := line(resp); err != nil {
			g.s.countCancel()
			return
		}
	}
	switch after {
	case "cut":
		panic(http.ErrAbortHandler)
	case "error":
		if written == 0 {
			writeJSON(g.w, http.StatusInternalServerError, jsonBare, errBody(g.turn.Error))
			return
		}
		if err := line(errBody(g.turn.Error)); err != nil {
			g.s.countCancel()
		}
		return
	}
	if err := g.pause(-1); err != nil {
		g.s.countCancel()
		return
	}
	if err := line(g.final()); err != nil {
		g.s.countCancel()
	}
}

func (g *gen) aggregate() {
	n, after := g.events()
	g.evalStart = time.Now()
	var content, thinking strings.Builder
	var calls []api.ToolCall
	for i := range n {
		if err := g.pause(i); err != nil {
			g.s.countCancel()
			return
		}
		content.WriteString(g.msgs[i].Content)
		thinking.WriteString(g.msgs[i].Thinking)
		calls = append(calls, g.msgs[i].ToolCalls...)
	}
	switch after {
	case "cut":
		panic(http.ErrAbortHandler)
	case "error":
		writeJSON(g.w, http.StatusInternalServerError, jsonUTF8, errBody(g.turn.Error))
		return
	}
	if err := g.pause(-1); err != nil {
		g.s.countCancel()
		return
	}
	resp := g.final()
	resp.Message.Content = content.String()
	resp.Message.Thinking = thinking.String()
	resp.Message.ToolCalls = calls
	writeJSON(g.w, http.StatusOK, jsonUTF8, resp)
}
