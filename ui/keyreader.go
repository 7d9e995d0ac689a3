package ui

import (
	"bytes"
	"io"
	"os"
	"sync"

	"latch/themes"
)

// TeaInput is the input to give Bubble Tea for the terminal f (stdin):
// what is read from f reaches Bubble Tea with every disambiguated key
// sequence (see keysOn) turned into the legacy bytes of its key, so
// Bubble Tea only sees keys it knows, each as a message of its own.
//
// It is a terminal file to Bubble Tea (Fd, Name): Bubble Tea still puts f
// in raw mode, and its reader can still be cancelled (on a suspend, at
// the end) by waiting on f's descriptor.
//
// late is told the terminal's answers to the questions latch asks at
// start should they come after latch stopped waiting for them: on a slow
// link they can come seconds late.
func TeaInput(f *os.File, late LateAnswers) io.ReadWriteCloser {
	return inputFile{newKeyReader(f, late), f}
}

// LateAnswers is told the terminal's answers to latch's start-up questions
// that come after latch stopped waiting for them. The answers are no
// keys: they never reach Bubble Tea. A nil func is told nothing.
type LateAnswers struct {
	// Sync is told whether the terminal has synchronized output (its
	// DECRPM about mode 2026; see SyncOutputMsg).
	Sync func(on bool)
	// Background is told whether the terminal's background is dark (its
	// OSC 11 answer, the colour; see BackgroundMsg).
	Background func(dark bool)
}

// TeaInputAfter is TeaInput of the keys r reads: keys typed before the
// screen opened (read by a terminal query), then f's. It has f's Fd, so
// Bubble Tea puts f in raw mode, but no Name: Bubble Tea's reader then
// reads without first waiting for f to be readable, which would hold the
// keys read before until the next key. Closing it closes nothing. late
// is as TeaInput's.
func TeaInputAfter(r io.Reader, f *os.File, late LateAnswers) io.ReadWriteCloser {
	return typedFile{newKeyReader(r, late), f}
}

type typedFile struct {
	*keyReader
	f *os.File
}

func (i typedFile) Write(p []byte) (int, error) { return i.f.Write(p) }
func (i typedFile) Close() error                { return nil }

// Fd is the terminal's file descriptor.
func (i typedFile) Fd() uintptr { return i.f.Fd() }

type inputFile struct {
	*keyReader
	f *os.File
}

func (i inputFile) Write(p []byte) (int, error) { return i.f.Write(p) }
func (i inputFile) Close() error                { return i.f.Close() }

// Fd is the terminal's file descriptor.
func (i inputFile) Fd() uintptr { return i.f.Fd() }

// Name is the terminal's file name.
func (i inputFile) Name() string { return i.f.Name() }

// keyReader reads r through a keyDecoder. Bubble Tea reads from one
// goroutine at a time; mu keeps the decoder whole should a cancelled
// read still be under way when the next begins.
type keyReader struct {
	mu  sync.Mutex
	r   io.Reader
	dec keyDecoder
	in  []byte
	out []byte // decoded bytes p had no room for
	err error  // r's error, once out is given
}

func newKeyReader(r io.Reader, late LateAnswers) *keyReader {
	return &keyReader{r: r, dec: keyDecoder{late: late}}
}

// Read reads once from r and returns what that decodes to: nothing (0,
// nil) when all of it is the start of a sequence that goes on in the next
// read. It reads no more than p has room for once decoded (a decoded key
// is never longer than its sequence), so when p is larger than a held
// sequence nothing is left for a later Read: a reader that waits for f to
// be readable before each Read, as Bubble Tea's does, never waits on
// bytes already read.
func (k *keyReader) Read(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.out) == 0 {
		if k.err != nil {
			return 0, k.err
		}
		n := max(len(p)-len(k.dec.held), 1)
		if cap(k.in) < n {
			k.in = make([]byte, n)
		}
		n, err := k.r.Read(k.in[:n])
		k.out = k.dec.decode(k.out[:0], k.in[:n])
		if err != nil {
			k.out = append(k.out, k.dec.flush()...)
			k.err = err
		}
	}
	n := copy(p, k.out)
	k.out = k.out[n:]
	if len(k.out) == 0 && n == 0 {
		return 0, k.err
	}
	return n, nil
}

// maxSeq is the longest sequence held for its end: a longer one is not a
// key, and is passed on as it is.
const maxSeq = 32

// The markers around a bracketed paste.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// keyDecoder turns the key sequences in a stream of reads into the
// legacy bytes of their keys (parseKeySeq), drops the terminal's answers
// to an OSC query (oscReplyLen: one that came after latch stopped waiting
// for it, on a slow link or a busy machine, is no key, and Bubble Tea
// would take its bytes for typed text), telling late.Background what an
// OSC 11 answer said of the background, and, as late, the answers to the
// question about synchronized output (DECRPM and DA1: see
// lateCSIAnswer), telling late.Sync what the terminal said; and passes
// everything else on
// unchanged: other sequences (the mouse's among them), text, and the
// whole of a bracketed paste. A sequence cut at the end of a read is held
// until its end comes. A lone Esc at the end of a read is passed on at
// once, as Bubble Tea would see it: it is the Esc key; so is Esc ] (Alt+]).
type keyDecoder struct {
	held    []byte // the start of a sequence cut at the end of the last read
	late    LateAnswers
	inPaste bool
	seenEnd int // in a paste: how much of its end marker was last seen
}

// decode appends to out what in decodes to.
func (d *keyDecoder) decode(out, in []byte) []byte {
	b := in
	if len(d.held) > 0 {
		b = append(d.held, in...)
		d.held = nil
	}
	for i := 0; i < len(b); {
		if d.inPaste {
			n := d.pasted(b[i:])
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		if b[i] == 0x1b && i+1 < len(b) && b[i+1] == ']' {
			switch n, whole := oscReplyLen(b[i:]); {
			case whole:
				d.lateOSCAnswer(b[i : i+n])
				i += n // an answer to a query, late: no key
				continue
			case n > 0 && i+n == len(b):
				d.held = bytes.Clone(b[i:])
				i += n
				continue
			}
		}
		if b[i] != 0x1b || i+1 == len(b) || b[i+1] != '[' {
			out = append(out, b[i])
			i++
			continue
		}
		n, whole := csiLen(b[i:])
		seq := b[i : i+n]
		switch {
		case whole && d.lateCSIAnswer(seq):
			// an answer to a query, late: no key
		case whole:
			if key, ok := parseKeySeq(string(seq)); ok {
				out = append(out, key...)
			} else {
				out = append(out, seq...)
				d.inPaste = string(seq) == pasteStart
			}
		case i+n == len(b) && n < maxSeq:
			d.held = bytes.Clone(seq)
		default:
			out = append(out, seq...)
		}
		i += n
	}
	return out
}

// maxOSCReply is the longest answer to an OSC query taken for one; a
// colour's is about 25 bytes.
const maxOSCReply = 128

// oscReplyLen is the length of the answer to an OSC query (Esc ] digits ;
// printable text, then BEL or Esc \) that b starts with, and whether it is
// whole. It is 0 when b does not start like one (Esc ] and then no digit,
// or a byte no answer has): Alt+] and what follows it stay keys. An
// answer cut short at the end of b, past its first digit, is its length
// so far, not whole.
func oscReplyLen(b []byte) (int, bool) {
	i := 2
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 2 {
		return 0, false
	}
	if i < len(b) && b[i] != ';' {
		return 0, false
	}
	for i++; i < len(b) && i < maxOSCReply; i++ {
		switch c := b[i]; {
		case c == 0x07:
			return i + 1, true
		case c == 0x1b:
			if i+1 == len(b) {
				return i + 1, false
			}
			if b[i+1] == '\\' {
				return i + 2, true
			}
			return 0, false
		case c < 0x20 || c > 0x7e:
			return 0, false
		}
	}
	if i >= maxOSCReply {
		return 0, false
	}
	return len(b), false
}

// flush gives back a held sequence as it is (the input ended).
func (d *keyDecoder) flush() []byte {
	b := d.held
	d.held = nil
	return b
}

// pasted is how many bytes at the start of b are in the paste, its end
// marker included; the paste ends with them when it does.
func (d *keyDecoder) pasted(b []byte) int {
	for i, c := range b {
		switch {
		case c == pasteEnd[d.seenEnd]:
			d.seenEnd++
		case c == 0x1b:
			d.seenEnd = 1
		default:
			d.seenEnd = 0
		}
		if d.seenEnd == len(pasteEnd) {
			d.inPaste, d.seenEnd = false, 0
			return i + 1
		}
	}
	return len(b)
}

// csiLen is the length of the control sequence b starts with ("\x1b[",
// parameter bytes, intermediate bytes, a final byte) and whether it is
// whole. When it is not, the length is up to the first byte that cannot
// be in it, the end of b or maxSeq bytes, whichever comes first.
func csiLen(b []byte) (int, bool) {
	i := 2
	for i < len(b) && i < maxSeq && b[i] >= 0x30 && b[i] <= 0x3f {
		i++
	}
	for i < len(b) && i < maxSeq && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i < len(b) && i < maxSeq && b[i] >= 0x40 && b[i] <= 0x7e {
		return i + 1, true
	}
	return i, false
}

// lateCSIAnswer reports whether seq, a whole control sequence, is the
// terminal's answer to the question latch asks at start (DECRQM of mode
// 2026, then DA1), come after latch stopped waiting for it: a DECRPM
// (CSI ? mode ; state $ y) or a DA1 answer (CSI ? params c). No key is
// sent so. A DECRPM about mode 2026 is told to late.Sync: the terminal has
// synchronized output when it says the mode is set (1) or reset (2).
func (d *keyDecoder) lateCSIAnswer(seq []byte) bool {
	if len(seq) < 4 || seq[2] != '?' {
		return false
	}
	params, final := seq[3:len(seq)-1], seq[len(seq)-1]
	switch {
	case final == 'c':
		return len(bytes.Trim(params, "0123456789;")) == 0
	case final == 'y' && bytes.HasSuffix(params, []byte("$")):
		mode, state, ok := bytes.Cut(params[:len(params)-1], []byte(";"))
		if !ok || len(mode) == 0 || len(state) != 1 || len(bytes.Trim(mode, "0123456789")) != 0 {
			return false
		}
		if string(mode) == "2026" && d.late.Sync != nil {
			d.late.Sync(state[0] == '1' || state[0] == '2')
		}
		return true
	}
	return false
}

// lateOSCAnswer tells late.Background what seq, a whole answer to an OSC
// query come late, says of the background, when it is the answer to OSC
// 11 (see themes.BackgroundAnswer).
func (d *keyDecoder) lateOSCAnswer(seq []byte) {
	if d.late.Background == nil {
		return
	}
	if dark, ok := themes.BackgroundAnswer(seq); ok {
		d.late.Background(dark)
	}
}
