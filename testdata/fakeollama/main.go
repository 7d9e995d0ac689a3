// Command fakeollama runs the ollamatest fake Ollama server standalone, for
// manual testing and streaming benchmarks:
//
//	go run ./testdata/fakeollama -addr 127.0.0.1:0 -model qwen3:8b -tokens 3000 -delay 1ms
//
// The first line on stdout is "listening on 127.0.0.1:PORT"; then it serves
// until interrupted. Every chat is answered with ollamatest.Markdown(tokens)
// (or -text), streamed one token per line with -delay before each, after
// the optional -think text as thinking chunks.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"latch/session/ollamatest"
)

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func main() {
	var models listFlag
	addr := flag.String("addr", "127.0.0.1:11434", "address to listen on (port 0 picks a free one)")
	flag.Var(&models, "model", "model name, repeatable or comma-separated (default qwen3:8b)")
	caps := flag.String("caps", "completion,tools,thinking", "capabilities of every model, comma-separated")
	tokens := flag.Int("tokens", 3000, "size of the markdown reply, in tokens")
	delay := flag.Duration("delay", time.Millisecond, "delay before each chunk")
	text := flag.String("text", "", "fixed reply text instead of the markdown document")
	think := flag.String("think", "", "thinking text sent before the reply (thinking models only)")
	version := flag.String("version", ollamatest.V0174, "the Ollama version to answer as: "+strings.Join(ollamatest.Versions, ", "))
	flag.Parse()

	if len(models) == 0 {
		models = listFlag{"qwen3:8b"}
	}
	var capList []string
	for _, c := range strings.Split(*caps, ",") {
		if c = strings.TrimSpace(c); c != "" {
			capList = append(capList, c)
		}
	}
	var ms []ollamatest.Model
	for _, name := range models {
		family, _, _ := strings.Cut(name, ":")
		if i := strings.LastIndex(family, "/"); i >= 0 {
			family = family[i+1:]
		}
		ms = append(ms, ollamatest.Model{
			Name: name, Size: 5_000_000_000, Family: family, ParameterSize: "8.0B", QuantizationLevel: "Q4_K_M",
			Capabilities: capList, ContextLength: 40960,
		})
	}

	s, err := ollamatest.NewAtAs(*addr, *version, ms...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(1)
	}
	reply := *text
	if reply == "" {
		reply = ollamatest.Markdown(*tokens)
	}
	var chunks []ollamatest.Chunk
	if *think != "" {
		chunks = append(chunks, ollamatest.ThinkingTokens(*think)...)
	}
	chunks = append(chunks, ollamatest.Tokens(reply)...)
	s.SetDefault(ollamatest.Turn{Chunks: chunks, Delay: *delay})

	fmt.Printf("listening on %s\n", s.Host())
	os.Stdout.Sync()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
}
