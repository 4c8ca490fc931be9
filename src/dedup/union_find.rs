//! Disjoint sets over document positions `0..n`.

use alloc::vec::Vec;

/// Union by size, path halving on the mutable path. [`find`](Self::find)
/// takes `&self` so the parallel scan can read a snapshot: union by size
/// alone keeps every tree O(log n) deep.
pub(crate) struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons. The caller guarantees `n <= u32::MAX as usize + 1`.
    pub(crate) fn new(n: usize) -> Self {
        Self {
            parent: (0..n).map(|i| i as u32).collect(),
            size: alloc::vec![1; n],
        }
    }

    /// Root of `x`'s set, without changing anything.
    pub(crate) fn find(&self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            x = self.parent[x as usize];
        }
        x
    }

    fn find_halving(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Merges the sets of `a` and `b`.
    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find_halving(a), self.find_halving(b));
        if ra == rb {
            return;
        }
        let (big, small) = if self.size[ra as usize] >= self.size[rb as usize] {
            (ra, rb)
        } else {
            (rb, ra)
        };
        self.parent[small as usize] = big;
        self.size[big as usize] += self.size[small as usize];
    }

    /// Number of elements in `x`'s set.
    pub(crate) fn set_size(&self, x: u32) -> u32 {
        self.size[self.find(x) as usize]
    }
}

#[cfg(test)]
mod tests;
