package mcp

// Event is something a server did. The manager hands events to the
// function given as Options.OnEvent, which must not block for long.
type Event interface{ server() string }

// StatusChanged says a server moved to a new state.
type StatusChanged struct{ Status Status }

// ToolsChanged says a server's tool list was refreshed. Changed lists the
// model-facing names of tools whose definition changed (a new digest).
type ToolsChanged struct {
	Server  string
	Tools   int
	Changed []string
	Removed []string
}

// Progress is a progress notification for a running call.
type Progress struct {
	Server   string
	CallID   string
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
}

// LogLine is a line of a server's stderr or a log notification, redacted.
type LogLine struct {
	Server string
	Source string // "stderr" or the notification's level
	Text   string
}

// LoginURL is the URL a login opens in the browser, to be shown too (a
// remote terminal has no browser to open).
type LoginURL struct {
	Server string
	URL    string
}

func (e LoginURL) server() string      { return e.Server }
func (e StatusChanged) server() string { return e.Status.Name }
func (e ToolsChanged) server() string  { return e.Server }
func (e Progress) server() string      { return e.Server }
func (e LogLine) server() string       { return e.Server }
