package cli

import (
	"bufio"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dropStartPages lets go of the pages of latch's own binary that the
// start touched, before the chat draws its first frame: the kernel
// unmaps them from latch (they stay in the page cache) and maps back, at
// their next use, only those the chat reaches. It returns the ranges it
// let go, for keepPagesDown.
//
// The binary is 40 MB, and the packages' init functions (chroma's lexers
// and styles, the JSON Schema meta-schemas, bluemonday, goldmark) run
// code and read data all over it: by the first frame about 21 MB of it is
// mapped, since the kernel maps the cached pages around each one read (64
// KB). Most of that is never used again. After this, the chat maps back
// about 15 MB, so its peak RSS is about 5 MB lower (docs/ARCHITECTURE.md,
// "Start-up and memory").
//
// Only read-only mappings of the binary are dropped, and only those that
// hold no page of their own (Anonymous 0 in smaps): a breakpoint a
// debugger wrote, a uprobe, a relocated page of a position-independent
// build are such pages, and dropping one would lose it.
func dropStartPages() []pageRange {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	var dropped []pageRange
	var cur pageRange // the read-only mapping of the binary being read, if any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			cur = pageRange{}
			if len(fields) == 6 && fields[5] == exe && !strings.Contains(fields[1], "w") {
				cur = mappingRange(fields[0])
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok && cur.hi > cur.lo {
			if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) == "0" {
				cur.drop()
				dropped = append(dropped, cur)
			}
			cur = pageRange{}
		}
	}
	return dropped
}

// pageRange is a mapping of the binary: [lo, hi).
type pageRange struct{ lo, hi uint64 }

func (r pageRange) drop() {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(r.lo), uintptr(r.hi-r.lo), syscall.MADV_DONTNEED)
}

// mappingRange parses a maps line's "start-end" (hexadecimal).
func mappingRange(s string) pageRange {
	a, b, _ := strings.Cut(s, "-")
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return pageRange{}
	}
	return pageRange{lo, hi}
}

// Keeping the binary's pages down while the chat works.
const (
	// pagesLook is how often keepPagesDown looks at the binary's pages.
	pagesLook = 250 * time.Millisecond
	// pagesGrowth is how much the file-backed RSS may grow past what it
	// was after the last drop before the binary's pages are let go again.
	pagesGrowth = 2 << 20
)

// keepPagesDown lets go of the binary's pages (ranges, as dropStartPages
// found them) again whenever the chat has mapped back more than
// pagesGrowth of files since the last time, looking every pagesLook
// until stop is called.
//
// A reply maps back most of the binary it ever uses: the code and tables
// of the markdown renderer, the code highlighter, the HTTP client and the
// collector (the runtime's tables of every function a stack holds), each
// touch mapping the 64 KB around it. On the workload (a 3,000-token
// reply) the binary's RSS went from about 4 MB after the start to 17 MB
// at the end of the reply, while what a quarter of a second of streaming
// touches is a fraction of that. Letting go again as it grows keeps the
// binary's share near what the chat uses now; what it reaches next is in
// the page cache, mapped back without a read. An idle chat maps nothing,
// and is not dropped: all it costs then is reading /proc/self/statm four
// times a second.
//
// A range that has come to hold a page of its own since (a breakpoint, a
// uprobe) is no longer dropped (privatePage), and nothing is dropped while
// a debugger is attached.
func keepPagesDown(ranges []pageRange) (stop func()) {
	if len(ranges) == 0 {
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		floor := fileRSS()
		tick := time.NewTicker(pagesLook)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if now := fileRSS(); now < 0 || now < floor+pagesGrowth || traced() {
				continue
			}
			for _, r := range ranges {
				if !privatePage(r) {
					r.drop()
				}
			}
			floor = fileRSS()
		}
	}()
	return func() { close(done); <-ended }
}

// fileRSS is the process's resident pages that are not anonymous (in
// bytes; /proc/self/statm's "shared": RssFile and RssShmem), read without
// walking the page tables; -1 if it cannot be read.
func fileRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return -1
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return -1
	}
	return n * int64(os.Getpagesize())
}

// traced says whether a debugger (or anything with ptrace) is attached:
// it may have written breakpoints, which a drop would lose.
func traced() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return true
}

// privatePage says whether r holds a page of its own (present, and not a
// page of the file: bit 61 of /proc/self/pagemap clear), such as a
// breakpoint or a uprobe's page, or whether that cannot be told.
func privatePage(r pageRange) bool {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return true
	}
	defer func() { _ = f.Close() }()
	page := uint64(os.Getpagesize())
	buf := make([]byte, (r.hi-r.lo)/page*8)
	if n, err := f.ReadAt(buf, int64(r.lo/page*8)); err != nil || n != len(buf) {
		return true
	}
	for i := 0; i+8 <= len(buf); i += 8 {
		e := binary.LittleEndian.Uint64(buf[i:])
		if e&(1<<63) != 0 && e&(1<<61) == 0 {
			return true
		}
	}
	return false
}
