package session

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// The tool budget (docs/MODELS.md: "Too many tools"). Every tool offered costs the
// model prompt tokens and a choice: small local models choose worse the
// more tools they are offered. What a request offers is, in order:
//
//  1. the connected servers' tools, less those a server's config "tools"
//     list leaves out and those of servers turned off with /tools SERVER
//     off (offerable);
//  2. when that is more than the budget (ollama.max_tools), the budget's
//     worth of the tools most relevant to the conversation (selectTools):
//     by shared words (rankTools) or, with ollama.embed_model, by
//     embeddings (embed.go); a notice names those left out whenever that
//     set changes.
//
// This only narrows what the model is offered. A call is still resolved by
// its name among all the connected servers' tools and goes through the
// gate exactly as before (runToolCall): the gate, not the offer, decides
// what runs.

// DefaultMaxTools is the budget when ollama.max_tools is not set: about
// twenty tools is where small models start to choose badly.
const DefaultMaxTools = 24

// recentUsers is how many of the latest user messages the ranking reads.
const recentUsers = 3

// nameWeight is how much more a word of a tool's name counts than a word of
// its description.
const nameWeight = 3

// EstimateTokens estimates the prompt tokens a tool's definition takes:
// the bytes of its JSON definition, as the request carries it, divided by
// 4 (estimateTokens; the model's template adds a little around each).
func EstimateTokens(t Tool) int { return estimateTools(api.Tools{toOllamaTool(t)}) }

// ToolOffer is what the model is offered of the connected servers' tools,
// before the per-turn budget narrows it (see ToolOfferOf).
type ToolOffer struct {
	Offered    []Tool // by name
	Tokens     int    // the estimated tokens of Offered's definitions (EstimateTokens)
	NotOffered []Tool // connected, but turned off or not in the server's tools list; by name
	// Off are the servers turned off with /tools SERVER off.
	Off []string
	// Unknown are, by server, the names in a connected server's config
	// tools list that it has no tool of. Names are known only once a
	// server is connected: they are warned of, never an error.
	Unknown map[string][]string
	// MaxTools is the per-turn budget (ollama.max_tools): above it, each
	// turn offers that many of the most relevant tools.
	MaxTools int
	// LeftOut are the tools the budget left out of the last request, by
	// name.
	LeftOut []Tool
}

// ToolOfferOf says what the model is offered of one server's tools, or of
// all when server is "".
func (s *Session) ToolOfferOf(server string) (ToolOffer, error) {
	all, err := s.Tools(server)
	if err != nil {
		return ToolOffer{}, err
	}
	var connected map[string]bool
	if s.servers != nil {
		connected = map[string]bool{}
		for _, st := range s.servers.Statuses() {
			connected[st.Name] = st.State == StateConnected
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := ToolOffer{MaxTools: s.maxTools, Unknown: map[string][]string{}}
	have := map[string]map[string]bool{}
	for _, t := range all {
		if have[t.Server] == nil {
			have[t.Server] = map[string]bool{}
		}
		have[t.Server][t.Original] = true
		if s.offerableLocked(t) {
			o.Offered = append(o.Offered, t)
			o.Tokens += EstimateTokens(t)
		} else {
			o.NotOffered = append(o.NotOffered, t)
		}
	}
	for name, list := range s.offer {
		if (server != "" && name != server) || !connected[name] {
			continue
		}
		for _, n := range list {
			if !have[name][n] {
				o.Unknown[name] = append(o.Unknown[name], n)
			}
		}
	}
	for name, off := range s.toolsOff {
		if off && (server == "" || name == server) {
			o.Off = append(o.Off, name)
		}
	}
	sort.Strings(o.Off)
	for _, t := range s.leftOut {
		if server == "" || t.Server == server {
			o.LeftOut = append(o.LeftOut, t)
		}
	}
	sort.Slice(o.LeftOut, func(i, j int) bool { return o.LeftOut[i].Name < o.LeftOut[j].Name })
	return o, nil
}

// SetToolsOffered turns the offer of a server's tools off or back on
// (/tools SERVER off|on): off, none of them is offered to the model; on,
// those its config's tools list names (all, without one) are again. Calls
// are not affected: a call names a tool, and the gate decides it.
func (s *Session) SetToolsOffered(server string, on bool) error {
	if s.servers == nil {
		return errNoServers
	}
	if _, err := s.servers.ServerTools(server); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		delete(s.toolsOff, server)
	} else {
		s.toolsOff[server] = true
	}
	return nil
}

// offerableLocked reports whether t is offered before the budget: its
// server is not turned off and, when its config lists tools, lists it.
// Callers hold mu.
func (s *Session) offerableLocked(t Tool) bool {
	if s.toolsOff[t.Server] {
		return false
	}
	list, limited := s.offer[t.Server]
	return !limited || slices.Contains(list, t.Original)
}

// requestTools is the tools of the next request: the offerable ones,
// narrowed to the budget when there are more (selectTools), ranked by
// embeddings when an embedding model is set and they can be had. When the
// set left out changes, a notice says what it is.
func (s *Session) requestTools(ctx context.Context) api.Tools {
	all := s.servers.Tools()
	s.mu.Lock()
	tools := make([]Tool, 0, len(all))
	for _, t := range all {
		if s.offerableLocked(t) {
			tools = append(tools, t)
		}
	}
	budget := s.maxTools
	users := recentUserTexts(s.conversationLocked(), recentUsers)
	s.mu.Unlock()
	offerable := toolNames(tools)
	var left []Tool
	if len(tools) > budget {
		var sim []float64
		if s.embedModel != "" {
			sim = s.embedScores(ctx, s.embedModel, tools, all, users)
		}
		tools, left = selectTools(tools, users, budget, sim)
	}
	s.noteBudget(offerable, len(tools), left)
	return ollamaTools(tools)
}

// noteBudget keeps what the budget left out (for /tools) and, when the
// budget narrows the offer, says so in one line: once for each set of
// offerable tools, budget and model (the first turn, a server that
// connects or changes its tools, another model), not again while only the
// ranking moves from turn to turn.
func (s *Session) noteBudget(offerable []string, offered int, left []Tool) {
	s.mu.Lock()
	key := fmt.Sprintf("%s\x00%d\x00%s", s.model, s.maxTools, strings.Join(offerable, "\x00"))
	same := key == s.budgetSaid
	s.budgetSaid, s.leftOut = key, left
	s.mu.Unlock()
	if same || len(left) == 0 {
		return
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
		"offered %d of %d tools, the most relevant each turn (ollama.max_tools); /tools for the list",
		offered, offered+len(left))})
}

// toolNames are the model-facing names of tools.
func toolNames(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// recentUserTexts are the last n user messages of the history, oldest
// first.
func recentUserTexts(history []api.Message, n int) []string {
	var out []string
	for i := len(history) - 1; i >= 0 && len(out) < n; i-- {
		if history[i].Role == "user" {
			out = append(out, history[i].Content)
		}
	}
	slices.Reverse(out)
	return out
}

// selectTools picks the tools to offer: the budget's worth of the best
// ranked (rankTools, or rankScored by sim when it is not nil: a score per
// tool), and every tool the last user message names even past the budget.
// Both lists keep the order tools came in, so the prompt stays the same
// while the set does.
func selectTools(tools []Tool, users []string, budget int, sim []float64) (offered, left []Tool) {
	var order []int
	var named int
	if sim != nil {
		order, named = rankScored(tools, users, sim)
	} else {
		order, named = rankTools(tools, users)
	}
	keep := make([]bool, len(tools))
	for i, idx := range order {
		if i < max(budget, named) {
			keep[idx] = true
		}
	}
	for i, t := range tools {
		if keep[i] {
			offered = append(offered, t)
		} else {
			left = append(left, t)
		}
	}
	return offered, left
}

// rankTools orders tools (by index) for a turn, most relevant first: the
// tools the last user message names (by model-facing or original name)
// first, then by a lexical score against the recent user messages (oldest
// first), highest first; ties keep the order the tools came in. named is
// how many lead for being named.
//
// The score: the messages are split into words (on non-letters, lower
// case, camelCase split, a plural s dropped; short and common words
// dropped), each word weighted by its latest message (the last 3, the one
// before 2, older 1). A tool scores the weight of each such word found in
// its name (times nameWeight) and in its title or description (once each).
func rankTools(tools []Tool, users []string) (order []int, named int) {
	q := newQuery(users)
	isNamed := namedIn(tools, users)
	scores := make([]int, len(tools))
	var sc scorer
	for i, t := range tools {
		scores[i] = sc.score(q, t)
	}
	return orderTools(isNamed, func(x, y int) bool { return scores[x] > scores[y] })
}

// rankScored is rankTools with given scores (one per tool, higher is more
// relevant; embedScores): the named tools first, then by score, ties in
// the order the tools came in.
func rankScored(tools []Tool, users []string, scores []float64) (order []int, named int) {
	return orderTools(namedIn(tools, users), func(x, y int) bool { return scores[x] > scores[y] })
}

// orderTools orders tool indexes: the named first, then by better, ties
// in index order. named is how many are named.
func orderTools(isNamed []bool, better func(x, y int) bool) (order []int, named int) {
	order = make([]int, len(isNamed))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if isNamed[x] != isNamed[y] {
			return isNamed[x]
		}
		return better(x, y)
	})
	for _, n := range isNamed {
		if n {
			named++
		}
	}
	return order, named
}

// namedIn marks the tools the last user message names as a whole word: its
// model-facing name or its original name, in any letter case.
func namedIn(tools []Tool, users []string) []bool {
	marks := make([]bool, len(tools))
	if len(users) == 0 {
		return marks
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(users[len(users)-1], func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
	}) {
		words[strings.ToLower(strings.Trim(w, "-"))] = true
	}
	for i, t := range tools {
		marks[i] = words[strings.ToLower(t.Name)] || words[strings.ToLower(t.Original)]
	}
	return marks
}

// query is the words of the recent user messages, each with the weight of
// the latest message it is in, and its index.
type query struct {
	weight map[string]int
	index  map[string]int
}

// userWeight is how much the i-th of n recent user messages (oldest first)
// counts in a ranking: the last 3, the one before 2, older ones 1.
func userWeight(i, n int) int { return max(1, 3-(n-1-i)) }

func newQuery(users []string) query {
	q := query{weight: map[string]int{}, index: map[string]int{}}
	var buf []byte
	for i, u := range users {
		w := userWeight(i, len(users))
		buf = eachWord(u, buf, func(word []byte) {
			k := string(word)
			if _, ok := q.index[k]; !ok {
				q.index[k] = len(q.index)
			}
			q.weight[k] = w // later messages come later: the latest wins
		})
	}
	return q
}

// scorer scores tools against a query, reusing its buffers.
type scorer struct {
	buf            []byte
	inName, inDesc []bool
}

func (sc *scorer) score(q query, t Tool) int {
	if len(q.index) == 0 {
		return 0
	}
	if cap(sc.inName) < len(q.index) {
		sc.inName, sc.inDesc = make([]bool, len(q.index)), make([]bool, len(q.index))
	}
	sc.inName, sc.inDesc = sc.inName[:len(q.index)], sc.inDesc[:len(q.index)]
	clear(sc.inName)
	clear(sc.inDesc)
	total := 0
	mark := func(seen []bool, per int) func([]byte) {
		return func(word []byte) {
			i, ok := q.index[string(word)]
			if ok && !seen[i] {
				seen[i] = true
				total += per * q.weight[string(word)]
			}
		}
	}
	sc.buf = eachWord(t.Name, sc.buf, mark(sc.inName, nameWeight))
	desc := mark(sc.inDesc, 1)
	sc.buf = eachWord(t.Title, sc.buf, desc)
	sc.buf = eachWord(t.Description, sc.buf, desc)
	return total
}

// eachWord calls f with each word of s, lower-cased into buf (which it
// returns for reuse): words are split on non-letters and at camelCase
// humps, a plural s is dropped, and words under 3 letters or common ones
// are skipped. f must not keep the slice.
func eachWord(s string, buf []byte, f func([]byte)) []byte {
	buf = buf[:0]
	prevLower := false
	flush := func() {
		w := buf
		if len(w) > 4 && w[len(w)-1] == 's' && w[len(w)-2] != 's' {
			w = w[:len(w)-1]
		}
		if utf8.RuneCount(w) >= 3 && !stopWords[string(w)] {
			f(w)
		}
		buf = buf[:0]
	}
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r):
			if len(buf) > 0 {
				flush()
			}
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower && len(buf) > 0:
			flush()
		}
		prevLower = unicode.IsLower(r)
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			buf = append(buf, byte(r))
		} else {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		}
	}
	if len(buf) > 0 {
		flush()
	}
	return buf
}

// stopWords are common words that say nothing of which tool fits.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with that this these those from into onto what which who whom
		whose how why when where you your yours are was were been being can could would should will shall
		may might must please have has had not but all any some use using used tool tool's its it's they them
		their there then than also just only very more most other each such our out about over under can't
		don't does did done doing get got let make need want like know see now here one two via per too
		any anything something everything thing thank thanks hello give show tell able just well yes`) {
		stopWords[w] = true
	}
}
