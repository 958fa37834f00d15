//! [`Table`]: the simulator's flat state arrays (per VC, per node, per channel, per message
//! slot), indexed without bounds checks in release builds.
//!
//! Every index into these tables comes from the network's own structure — a VC number below
//! the VC count, a node below the node count, a message slot handed out by the message table —
//! never from input: a scenario is validated before a simulation is built. A bounds check on
//! such an index can only catch a bug in the simulator, and in the inner loop the checks (and
//! the reloads of each vector's length they need) were 15% of all instructions (callgrind, DOR
//! on 1-flit and 16-flit messages). So the check is kept where bugs are looked for: debug
//! builds, which every `cargo test` run is, index with checks and panic on a bad index, with
//! the per-cycle invariant check ([`super::Simulation::check_invariants`]) on top; release
//! builds, native and WebAssembly, do not.

use std::ops::{Deref, DerefMut, Index, IndexMut};
use std::slice::SliceIndex;

/// A `Vec` whose indexing is checked in debug builds only (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Table<T>(Vec<T>);

impl<T> From<Vec<T>> for Table<T> {
    fn from(items: Vec<T>) -> Table<T> {
        Table(items)
    }
}

impl<T> FromIterator<T> for Table<T> {
    fn from_iter<It: IntoIterator<Item = T>>(items: It) -> Table<T> {
        Table(items.into_iter().collect())
    }
}

impl<T, I: SliceIndex<[T]>> Index<I> for Table<T> {
    type Output = I::Output;

    #[inline(always)]
    fn index(&self, i: I) -> &I::Output {
        if cfg!(debug_assertions) {
            &self.0[i]
        } else {
            // SAFETY: indices are in range by construction (module documentation); debug
            // builds, in which every test runs, check each one.
            unsafe { self.0.get_unchecked(i) }
        }
    }
}

impl<T, I: SliceIndex<[T]>> IndexMut<I> for Table<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: I) -> &mut I::Output {
        if cfg!(debug_assertions) {
            &mut self.0[i]
        } else {
            // SAFETY: as for `index`.
            unsafe { self.0.get_unchecked_mut(i) }
        }
    }
}

impl<T> Deref for Table<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> DerefMut for Table<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn indexes_like_a_vec() {
        let mut t: Table<u32> = vec![1, 2, 3].into();
        t[1] += 10;
        t.push(4);
        assert_eq!((t[1], &t[2..], t.len()), (12, &[3, 4][..], 4));
    }

    /// Tests run with debug assertions, where a bad index is caught as in a `Vec`.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "out of bounds")]
    fn debug_builds_check_every_index() {
        let t: Table<u32> = vec![1, 2, 3].into();
        std::hint::black_box(t[std::hint::black_box(3)]);
    }
}
