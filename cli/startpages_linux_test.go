package cli

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The pages of the binary that the start mapped are let go: the
// process's file-backed RSS falls, and the test goes on running on the
// pages it maps back.
func TestDropStartPagesLetsGoOfTheBinarysPages(t *testing.T) {
	before := rssFileKiB(t)
	ranges := dropStartPages()
	after := rssFileKiB(t)
	if after >= before {
		t.Fatalf("RssFile %d KiB before, %d KiB after: nothing was let go", before, after)
	}
	if len(ranges) == 0 {
		t.Fatal("no range of the binary was reported let go")
	}
	for _, r := range ranges {
		if privatePage(r) {
			t.Errorf("range %x-%x, let go, is said to hold a page of its own", r.lo, r.hi)
		}
	}
}

// While the chat runs, the binary's pages it maps back are let go again
// once they have grown by more than pagesGrowth: reading the binary's
// read-only data back in raises RssFile, and it falls again without
// anything else asking.
func TestKeepPagesDownLetsGoAgainAfterGrowth(t *testing.T) {
	if traced() {
		t.Skip("a debugger is attached: nothing is dropped")
	}
	ranges := dropStartPages()
	if len(ranges) == 0 {
		t.Skip("no range of the binary to let go")
	}
	stop := keepPagesDown(ranges)
	defer stop()
	low := rssFileKiB(t)
	// Map the binary back in (MADV_POPULATE_READ, Linux 5.14), as a
	// reply's work would.
	const madvPopulateRead = 22
	for _, r := range ranges {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(r.lo), uintptr(r.hi-r.lo), madvPopulateRead); e != 0 {
			t.Skipf("MADV_POPULATE_READ: %v", e)
		}
	}
	high := rssFileKiB(t)
	if high < low+pagesGrowth/1024 {
		t.Skipf("reading the binary mapped back only %d KiB (RssFile %d → %d): nothing to let go", high-low, low, high)
	}
	deadline := time.Now().Add(10 * time.Second)
	for rssFileKiB(t) > high-pagesGrowth/1024/2 {
		if time.Now().After(deadline) {
			t.Fatalf("RssFile stayed at %d KiB after growing from %d to %d KiB", rssFileKiB(t), low, high)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func rssFileKiB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("RssFile: %q", v)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// A mapping of a file that holds a page of its own (written, as a
// debugger writes a breakpoint) is told apart from one that holds only
// the file's pages, so keepPagesDown leaves it alone.
func TestPrivatePageTellsAWrittenPage(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "pages")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	size := 4 * os.Getpagesize()
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(m) }()
	r := pageRange{uint64(uintptr(unsafe.Pointer(&m[0]))), uint64(uintptr(unsafe.Pointer(&m[0]))) + uint64(size)}
	_ = m[0] + m[size-1] // read: the file's own pages
	if privatePage(r) {
		t.Fatal("a mapping read only is said to hold a page of its own")
	}
	m[os.Getpagesize()] = 0xcc // written: a copy of its own
	if !privatePage(r) {
		t.Fatal("a mapping with a written page is not said to hold one")
	}
}
