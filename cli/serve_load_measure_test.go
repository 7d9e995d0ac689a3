package cli

// What TestServeFiftyClients measures of one run of its load, beside the
// calls' latency: the CPU a call of the gateway, of its upstream (the
// gateway's child processes) and of the clients (this test process, where
// the 50 clients run), and what crossed the wire a call (request and
// response, headers and bodies, as the client's transport sent and read
// them), so that a client that costs more a call is told apart from a
// gateway that does.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// loadRun is what one or more runs of fiftyClients against one gateway
// measured, summed.
type loadRun struct {
	ms                  []float64     // each call's time
	calls               int           // calls done
	wall                time.Duration // the runs' time
	gw, up, clients     time.Duration // CPU time: the gateway, its upstream, the clients
	sent, recv          int64         // bytes on the wire, headers and bodies
	requests, newConns  int64         // HTTP requests made, and how many opened a connection
	failures            []string
	sampleReq, sampleRe string // one tools/call request and its response, as sent and read
}

// add adds o to r.
func (r *loadRun) add(o loadRun) {
	r.ms = append(r.ms, o.ms...)
	r.calls += o.calls
	r.wall += o.wall
	r.gw += o.gw
	r.up += o.up
	r.clients += o.clients
	r.sent += o.sent
	r.recv += o.recv
	r.requests += o.requests
	r.newConns += o.newConns
	r.failures = append(r.failures, o.failures...)
	if r.sampleReq == "" {
		r.sampleReq, r.sampleRe = o.sampleReq, o.sampleRe
	}
}

// perCall is d a call, in ms.
func (r *loadRun) perCall(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000 / float64(max(r.calls, 1))
}

// summary is r in one line: latency, rate, CPU and bytes a call.
func (r *loadRun) summary() string {
	return fmt.Sprintf("%d done, %d failed in %v (%.0f calls/s); p50 %.2f ms, p99 %.2f ms; CPU a call: gateway %.3f ms, "+
		"upstream %.3f ms, clients %.3f ms; a call's request %d bytes, response %d bytes (headers and bodies, %.2f HTTP requests a call, "+
		"%.2f new connections a call)",
		r.calls, len(r.failures), r.wall.Round(time.Millisecond), float64(r.calls)/r.wall.Seconds(), percentile(r.ms, 50), percentile(r.ms, 99),
		r.perCall(r.gw), r.perCall(r.up), r.perCall(r.clients),
		r.sent/int64(max(r.calls, 1)), r.recv/int64(max(r.calls, 1)),
		float64(r.requests)/float64(max(r.calls, 1)), float64(r.newConns)/float64(max(r.calls, 1)))
}

// measureLoad runs fiftyClients against the gateway at url (process
// gwPid) and measures it.
func measureLoad(url, token, tool string, clients, calls int, legacy bool, gwPid int) loadRun {
	w := &wireCount{next: http.DefaultTransport}
	gw0, up0, cl0 := cpuTime(gwPid), treeCPU(gwPid), ownCPU()
	ms, failures, wall := fiftyClients(url, token, tool, clients, calls, legacy, &http.Client{Transport: w})
	return loadRun{ms: ms, calls: len(ms), wall: wall, failures: failures,
		gw: cpuTime(gwPid) - gw0, up: treeCPU(gwPid) - up0, clients: ownCPU() - cl0,
		sent: w.sent.Load(), recv: w.recv.Load(), requests: w.requests.Load(), newConns: w.newConns.Load(),
		sampleReq: w.sampleReq, sampleRe: w.sampleRe}
}

// ownCPU is the CPU time (user and system) this process used so far.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// treeCPU is the CPU time the descendants of pid used so far (Linux; 0
// elsewhere): the gateway's upstream servers.
func treeCPU(pid int) time.Duration {
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			continue
		}
		p, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		parent[p], _ = strconv.Atoi(f[1])
	}
	var sum time.Duration
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				sum += cpuTime(p)
				break
			}
		}
	}
	return sum
}

// wireCount is an HTTP transport that counts what crosses it: the bytes of
// each request and response (headers as written, bodies), the requests,
// and the connections opened for them. It keeps the first tools/call
// request and its response, with the token hidden.
type wireCount struct {
	next                           http.RoundTripper
	sent, recv, requests, newConns atomic.Int64
	once                           sync.Once
	sampleReq, sampleRe            string
}

// RoundTrip counts req and its response.
func (w *wireCount) RoundTrip(req *http.Request) (*http.Response, error) {
	w.requests.Add(1)
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.Method, req.URL.RequestURI(), req.URL.Host)
	_ = req.Header.Write(&head)
	w.sent.Add(int64(head.Len() + len(body) + 2))
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if !i.Reused {
			w.newConns.Add(1)
		}
	}}
	res, err := w.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil {
		return res, err
	}
	rb, rerr := io.ReadAll(res.Body)
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(rb))
	var rhead bytes.Buffer
	fmt.Fprintf(&rhead, "HTTP/1.1 %s\r\n", res.Status)
	_ = res.Header.Write(&rhead)
	w.recv.Add(int64(rhead.Len() + len(rb) + 2))
	if rerr == nil && bytes.Contains(body, []byte(`"tools/call"`)) {
		w.once.Do(func() {
			w.sampleReq = strings.ReplaceAll(head.String(), req.Header.Get("Authorization"), "Bearer …") + "\r\n" + string(body)
			w.sampleRe = rhead.String() + "\r\n" + string(rb)
		})
	}
	return res, rerr
}
