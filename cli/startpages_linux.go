package cli

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dropStartPages lets go of the pages of latch's own binary that the
// start touched, before the chat draws its first frame: the kernel
// unmaps them from latch (they stay in the page cache) and maps back, at
// their next use, only those the chat reaches.
//
// The binary is 40 MB, and the packages' init functions (bluemonday,
// goldmark, and until session 13 chroma's lexers and styles and the JSON
// Schema meta-schemas, which now load on first use) run code and read
// data all over it: by the first frame about 21 MB of it was mapped,
// since the kernel maps the cached pages around each one read (64 KB).
// Most of that is never used again. After this, the chat maps back about
// 15 MB, so its peak RSS was about 5 MB lower (session 11's figures:
// docs/ARCHITECTURE.md, "Start-up and memory").
//
// Only read-only mappings of the binary are dropped, and only those that
// hold no page of their own (Anonymous 0 in smaps): a breakpoint a
// debugger wrote, a uprobe, a relocated page of a position-independent
// build are such pages, and dropping one would lose it.
func dropStartPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	var lo, hi uint64 // the read-only mapping of the binary being read, if any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi = 0, 0
			if len(fields) == 6 && fields[5] == exe && !strings.Contains(fields[1], "w") {
				lo, hi = mappingRange(fields[0])
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok && hi > lo {
			if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) == "0" {
				_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(lo), uintptr(hi-lo), syscall.MADV_DONTNEED)
			}
			lo, hi = 0, 0
		}
	}
}

// mappingRange parses a maps line's "start-end" (hexadecimal).
func mappingRange(s string) (lo, hi uint64) {
	a, b, _ := strings.Cut(s, "-")
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return lo, hi
}
