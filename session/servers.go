package session

import (
	"time"

	"latch/mcp"
)

// ServerStatus is a snapshot of one MCP server (see mcp.Status).
type ServerStatus = mcp.Status

// Tool is one MCP tool as the model sees it (see mcp.Tool).
type Tool = mcp.Tool

// ServerConfig configures one MCP server (see mcp.ServerConfig).
type ServerConfig = mcp.ServerConfig

// Held are latch's own credentials, given to no server (mcp.Held).
type Held = mcp.Held

// TransportStdio is the transport of a server that runs as a process.
const TransportStdio = mcp.TransportStdio

// Server states, re-exported for the UI.
const (
	StateDisabled     = mcp.StateDisabled
	StateConnecting   = mcp.StateConnecting
	StateConnected    = mcp.StateConnected
	StateFailed       = mcp.StateFailed
	StateDisconnected = mcp.StateDisconnected
	StateAuthExpired  = mcp.StateAuthExpired
	StateClosed       = mcp.StateClosed
)

// mcpEvent turns the manager's events into session events.
func (s *Session) mcpEvent(e mcp.Event) {
	switch e := e.(type) {
	case mcp.StatusChanged:
		st := e.Status
		s.publish(&ServerStatusEvent{
			Header: s.header(TypeServerStatus), Server: st.Name, State: st.State.String(),
			Summary: st.Summary(), Reason: st.Reason, Transport: st.Transport, Tools: st.Tools,
			ProtocolVersion: st.ProtocolVersion, ExitStatus: st.ExitStatus, StderrTail: st.StderrTail,
		})
		s.mu.Lock()
		s.statusShown[st.Name] = st.Since
		s.mu.Unlock()
		if st.State == mcp.StateConnected {
			go s.rewatch(st.Name) // a new connection: its subscriptions are gone
		}
	case mcp.ToolsChanged:
		s.toolsChanged(e.Changed)
		s.publish(&ToolsChangedEvent{Header: s.header(TypeToolsChanged), Server: e.Server, Tools: e.Tools,
			Changed: e.Changed, Removed: e.Removed})
	case mcp.PromptsChanged:
		s.publishPromptsChanged(e)
	case mcp.LoginURL:
		s.loginURL(e)
	case mcp.Progress:
		ev := &ToolProgress{Header: s.header(TypeToolProgress), Server: e.Server, CallID: e.CallID,
			Progress: e.Progress, Total: e.Total, Message: e.Message}
		s.publish(ev)
		s.forwardProgress(ev)
	case mcp.ResourceUpdated, mcp.ResourcesChanged:
		s.resourceEvent(e)
	case mcp.TaskStatus:
		s.taskStatus(e)
	}
}

// StartServers connects every enabled MCP server in the background.
func (s *Session) StartServers() {
	if s.servers != nil {
		s.mu.Lock()
		s.serversStarted = time.Now()
		s.mu.Unlock()
		s.servers.Start()
	}
}

// Servers returns every configured server's status, sorted by name.
func (s *Session) Servers() []ServerStatus {
	if s.servers == nil {
		return nil
	}
	return s.servers.Statuses()
}

// ServerNames lists the configured servers.
func (s *Session) ServerNames() []string {
	if s.servers == nil {
		return nil
	}
	return s.servers.Names()
}

// ConnectServer connects (or reconnects, re-reading the credential) a
// server or "all". It blocks until done.
func (s *Session) ConnectServer(name string) error {
	if s.servers == nil {
		return errNoServers
	}
	return s.servers.Connect(name)
}

// CloseServer closes a server or "all".
func (s *Session) CloseServer(name string) error {
	if s.servers == nil {
		return errNoServers
	}
	return s.servers.Close(name)
}

// SetToken gives a server a new token for this session (memory only) and
// reconnects it.
func (s *Session) SetToken(name, token string) error {
	if s.servers == nil {
		return errNoServers
	}
	return s.servers.SetToken(name, token)
}

// Tools lists the tools of one server, or of all when name is "".
func (s *Session) Tools(name string) ([]Tool, error) {
	if s.servers == nil {
		if name == "" {
			return nil, nil
		}
		return nil, errNoServers
	}
	if name == "" {
		return s.servers.Tools(), nil
	}
	return s.servers.ServerTools(name)
}

// ServerLogs returns a server's stderr and log notifications, redacted.
func (s *Session) ServerLogs(name string) ([]string, error) {
	if s.servers == nil {
		return nil, errNoServers
	}
	return s.servers.Logs(name)
}

// LogLevels are the levels /logs SERVER LEVEL takes.
var LogLevels = mcp.LogLevels

// RootURI is the file:// URI a root is sent as.
func RootURI(dir string) string { return mcp.RootURI(dir) }

// Roots are the directories the servers are told of (roots/list).
func (s *Session) Roots() []string {
	if s.servers == nil {
		return nil
	}
	return s.servers.Roots()
}

// AddRoot adds a directory to the roots for this session and tells the
// connected servers; it returns the directory as added and how many
// servers were told.
func (s *Session) AddRoot(dir string) (string, int, error) {
	if s.servers == nil {
		return "", 0, errNoServers
	}
	return s.servers.AddRoot(dir)
}

// RemoveRoot removes a directory from the roots for this session, as AddRoot.
func (s *Session) RemoveRoot(dir string) (string, int, error) {
	if s.servers == nil {
		return "", 0, errNoServers
	}
	return s.servers.RemoveRoot(dir)
}

// SetLogLevel asks a server for its log messages of level and above
// (logging/setLevel). It blocks: run it in a command.
func (s *Session) SetLogLevel(name, level string) error {
	if s.servers == nil {
		return errNoServers
	}
	return s.servers.SetLogLevel(name, level)
}
