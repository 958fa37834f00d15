//! The soaks' heap measure: a global allocator that counts the bytes in use and their peak per
//! thread, so that simulations soaking on parallel threads are measured apart (each lives and
//! dies on one thread).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAllocator;

thread_local! {
    static HEAP_IN_USE: Cell<isize> = const { Cell::new(0) };
    static HEAP_PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = HEAP_IN_USE.try_with(|in_use| {
        in_use.set(in_use.get() + delta);
        let _ = HEAP_PEAK.try_with(|peak| peak.set(peak.get().max(in_use.get())));
    });
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        count(-(layout.size() as isize));
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Bytes this thread has allocated and not freed.
pub fn heap_in_use() -> isize {
    HEAP_IN_USE.with(Cell::get)
}

/// Starts measuring this thread's peak from now; returns the bytes in use, the baseline.
pub fn reset_peak() -> isize {
    let baseline = heap_in_use();
    HEAP_PEAK.with(|p| p.set(baseline));
    baseline
}

/// The most bytes this thread has had in use since [`reset_peak`].
pub fn heap_peak() -> isize {
    HEAP_PEAK.with(Cell::get)
}
