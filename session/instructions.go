package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/ollama/ollama/api"
)

// TypeInstructions is the instructions event's type.
const TypeInstructions = "instructions"

// MaxInstructionBytes is the largest instructions file read (64 KiB).
const MaxInstructionBytes = 64 << 10

// Instruction is one system message sent first in every request: the
// system prompt or a project's instructions (AGENTS.md). They come from
// the config and flags only, never from a server.
type Instruction struct {
	Name string // what /context calls it: "system prompt", "AGENTS.md"
	Path string // the file it was read from; "" for text given directly
	Text string
}

// ReadInstruction reads an instructions file, at most MaxInstructionBytes;
// the error names the file.
func ReadInstruction(name, path string) (Instruction, error) {
	f, err := os.Open(path)
	if err != nil {
		return Instruction{}, fmt.Errorf("%s: %w", name, err)
	}
	defer func() { _ = f.Close() }() // read only
	b, err := io.ReadAll(io.LimitReader(f, MaxInstructionBytes+1))
	if err != nil {
		return Instruction{}, fmt.Errorf("%s %s: %w", name, path, err)
	}
	if len(b) > MaxInstructionBytes {
		return Instruction{}, fmt.Errorf("%s %s: larger than %d KiB", name, path, MaxInstructionBytes>>10)
	}
	return Instruction{Name: name, Path: path, Text: string(b)}, nil
}

// InstructionsEvent logs the instructions the session sends: hashed, not
// copied (a resume reads the files again and compares).
type InstructionsEvent struct {
	Header
	Instructions []InstructionRecord `json:"instructions"`
}

// InstructionRecord is one instruction as logged.
type InstructionRecord struct {
	Name   string `json:"name"`
	Path   string `json:"path,omitempty"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// InstructionCost is one instruction as /context shows it.
type InstructionCost struct {
	Name   string
	Path   string
	Tokens int // estimated, as sent
}

func record(in Instruction) InstructionRecord {
	sum := sha256.Sum256([]byte(in.Text))
	return InstructionRecord{Name: in.Name, Path: in.Path, SHA256: hex.EncodeToString(sum[:]), Bytes: len(in.Text)}
}

// instructionMessages are the system messages that open every request.
func instructionMessages(ins []Instruction) []api.Message {
	var out []api.Message
	for _, in := range ins {
		if in.Text != "" {
			out = append(out, api.Message{Role: "system", Content: in.Text})
		}
	}
	return out
}

// restoreInstructions compares the instructions a resumed session logged
// with those given now, by name: a file logged but not given is read
// again from its logged path (the resume sends the same), and one whose
// text changed since is used as it is now, with a notice. A logged text
// that is not given now is said, and not sent.
func restoreInstructions(o *Options, logged *InstructionsEvent) (notices []string) {
	if logged == nil {
		return nil
	}
	now := map[string]int{} // by name: the system prompt, the instructions file's name
	for i, in := range o.Instructions {
		now[in.Name] = i
	}
	for _, r := range logged.Instructions {
		i, ok := now[r.Name]
		var cur Instruction
		switch {
		case ok:
			cur = o.Instructions[i]
		case r.Path != "":
			in, err := ReadInstruction(r.Name, r.Path)
			if err != nil {
				notices = append(notices, fmt.Sprintf("%s, which this session began with, cannot be read: %v (not sent)", r.Name, err))
				continue
			}
			o.Instructions = append(o.Instructions, in)
			cur = in
		default:
			notices = append(notices, r.Name+", which this session began with, is not set now (not sent)")
			continue
		}
		if record(cur).SHA256 != r.SHA256 {
			what := r.Name
			if r.Path != "" {
				what += " (" + r.Path + ")"
			}
			notices = append(notices, what+" changed since this session began: the current one is sent")
		}
	}
	return notices
}

// publishInstructions logs the instructions sent, hashed.
func (s *Session) publishInstructions() {
	if len(s.instructions) == 0 && !s.resumed {
		return
	}
	ev := &InstructionsEvent{Header: s.header(TypeInstructions)}
	for _, in := range s.instructions {
		ev.Instructions = append(ev.Instructions, record(in))
	}
	s.publish(ev)
}

// instructionCosts are the instructions' estimated sizes, for /context.
func instructionCosts(ins []Instruction) []InstructionCost {
	var out []InstructionCost
	for _, in := range ins {
		out = append(out, InstructionCost{Name: in.Name, Path: in.Path,
			Tokens: estimateMessage(api.Message{Role: "system", Content: in.Text})})
	}
	return out
}
