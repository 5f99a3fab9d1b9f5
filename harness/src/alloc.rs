//! The `bloomlab` binary's allocator: the system allocator, with every
//! allocation of 2 MiB or more advised onto transparent huge pages
//! (`madvise(MADV_HUGEPAGE)`, Linux only; elsewhere it is the system
//! allocator unchanged).
//!
//! Why: the filters of the large sweep points (windows of 2^20 and 2^24
//! keys, tens of MB of bits) are read and written at random, and with 4 KiB
//! pages nearly every access also misses the TLB and walks the page table.
//! Where the kernel's THP mode is `madvise` (this machine's, and Debian's
//! default), nothing gets huge pages unless it asks. The page walks mostly
//! hit the caches, so asking saves 5 - 18% of a large point (APBFs at
//! w = 2^24 alone on the machine; docs/speed.md). Only the `*_ns`
//! columns can change: what a filter stores and answers does not depend on
//! its page size.
//!
//! The criterion benchmarks do not use it, so that the published crates
//! they compare against and our designs are allocated alike.

use std::alloc::{GlobalAlloc, Layout, System};

/// Allocations at least this large are advised onto huge pages.
pub const HUGE_FROM: usize = 2 << 20;

/// The system allocator, advising large blocks onto transparent huge pages.
#[derive(Debug, Clone, Copy, Default)]
pub struct HugePages;

/// Advises the whole 4 KiB pages of `size` bytes at `p` onto huge pages.
/// A refusal (THP off, an old kernel) leaves the block as it was, so the
/// result is ignored.
fn advise(p: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (p as usize).next_multiple_of(PAGE);
        let end = (p as usize + size) / PAGE * PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside a block this allocator just
            // handed out; MADV_HUGEPAGE only changes how the kernel backs
            // those pages, never their contents or their mapping.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, size);
}

// SAFETY: every method forwards to `System` with the caller's arguments and
// returns what it returned; `advise` does not touch the block's contents.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && layout.size() >= HUGE_FROM {
            advise(p, layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && layout.size() >= HUGE_FROM {
            advise(p, layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`, passed on.
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() && new_size >= HUGE_FROM {
            advise(q, new_size);
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_and_small_blocks_keep_what_is_written_through_growth() {
        let a = HugePages;
        for size in [64, HUGE_FROM - 1, HUGE_FROM, 3 * HUGE_FROM + 12_345] {
            let layout = Layout::from_size_align(size, 64).unwrap();
            // SAFETY: a non-zero size; the block is written and read only
            // within its size and freed once with its layout.
            unsafe {
                let z = a.alloc_zeroed(layout);
                assert!(!z.is_null());
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                a.dealloc(z, layout);
                let p = a.alloc(layout);
                assert!(!p.is_null());
                for i in (0..size).step_by(4093) {
                    *p.add(i) = (i % 251) as u8;
                }
                let grown = a.realloc(p, layout, 2 * size + HUGE_FROM);
                assert!(!grown.is_null());
                for i in (0..size).step_by(4093) {
                    assert_eq!(*grown.add(i), (i % 251) as u8);
                }
                let bigger = Layout::from_size_align(2 * size + HUGE_FROM, 64).unwrap();
                a.dealloc(grown, bigger);
            }
        }
    }
}
