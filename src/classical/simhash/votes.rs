//! Term-frequency votes: token hashes queued in batches and added to a
//! [`BitCounter`] by the fastest lane kernel the CPU has.
//!
//! The portable kernel ([`scalar::add_run`]) spreads each hash byte through a
//! table into 8 one-byte lanes: 8 loads and 8 adds per token. With AVX-512BW
//! (`crate::arch::x86_64::avx512::votes`) one `vpmovm2b` turns the 64-bit
//! hash into 64 bytes of 0 or −1 and one `vpsubb` adds all 64 votes; the 64
//! lane bytes stay in a register for a whole batch. Both update the same
//! lane bytes and leave the widening to [`BitCounter::add_all`], so the
//! counts, and the signatures, are identical (the tests hold every kernel to
//! the plain ±1 counters).
//!
//! Which kernel runs is a [`VoteKernel`] value, which holds the CPU feature
//! proof of its level, obtainable only through detection: at run time under
//! `std`, from the compile-time target features without it (see
//! [`crate::arch`]).

use super::kernel::BitCounter;
use crate::arch::scalar::votes as scalar;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx512Bw, avx512};

/// Hashes queued before a kernel call: enough to amortize the call and the
/// register load and store of the lanes.
const BATCH: usize = 64;

/// The lane kernel a [`VoteKernel`] runs, with the proof that the CPU has
/// its features: a SIMD level can only come from detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx512Bw(Avx512Bw),
}

/// A proof-carrying kernel choice: a `VoteKernel` holding a SIMD level
/// exists only if the running CPU supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VoteKernel(Level);

impl VoteKernel {
    /// The fastest kernel the running CPU supports.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = Avx512Bw::detect() {
            return VoteKernel(Level::Avx512Bw(t));
        }
        VoteKernel(Level::Scalar)
    }

    /// Every kernel the running CPU supports, portable first (for tests).
    #[cfg(test)]
    pub(crate) fn all_available() -> alloc::vec::Vec<Self> {
        #[allow(unused_mut)] // only pushed to on x86_64
        let mut v = alloc::vec![VoteKernel(Level::Scalar)];
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = Avx512Bw::detect() {
            v.push(VoteKernel(Level::Avx512Bw(t)));
        }
        v
    }

    /// One ±1 vote per bit of every hash of `hashes`.
    #[inline]
    pub(crate) fn add_all(self, counter: &mut BitCounter, hashes: &[u64]) {
        match self.0 {
            Level::Scalar => counter.add_all(hashes, scalar::add_run),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512Bw(t) => {
                counter.add_all(hashes, |lanes, run| avx512::votes::add_run(t, lanes, run))
            }
        }
    }
}

/// A [`BitCounter`] fed through a batch queue: [`TfVotes::push`] is a store,
/// and every [`BATCH`] hashes go to the kernel at once.
#[derive(Clone)]
pub(crate) struct TfVotes {
    kernel: VoteKernel,
    counter: BitCounter,
    queue: [u64; BATCH],
    queued: usize,
}

impl TfVotes {
    pub(crate) fn new() -> Self {
        Self::with_kernel(VoteKernel::detect())
    }

    pub(crate) fn with_kernel(kernel: VoteKernel) -> Self {
        Self {
            kernel,
            counter: BitCounter::new(),
            queue: [0; BATCH],
            queued: 0,
        }
    }

    /// One ±1 vote per bit of `h`.
    #[inline(always)]
    pub(crate) fn push(&mut self, h: u64) {
        // `queued < BATCH` always holds here, so the `else` never runs; it
        // only lets the compiler drop the bounds check without a panic path.
        if let Some(slot) = self.queue.get_mut(self.queued) {
            *slot = h;
            self.queued += 1;
        }
        if self.queued == BATCH {
            self.drain();
        }
    }

    /// One ±1 vote per bit of every hash of `hashes`, bypassing the queue
    /// (the counts do not depend on the order of the votes).
    #[inline]
    pub(crate) fn push_all(&mut self, hashes: &[u64]) {
        self.kernel.add_all(&mut self.counter, hashes);
    }

    fn drain(&mut self) {
        self.kernel
            .add_all(&mut self.counter, &self.queue[..self.queued]);
        self.queued = 0;
    }

    /// Number of votes pushed.
    pub(crate) fn votes(&self) -> u64 {
        self.counter.votes() + self.queued as u64
    }

    /// The signature of the votes so far (see [`BitCounter::signature`]).
    pub(crate) fn signature(&mut self) -> u64 {
        self.drain();
        self.counter.signature()
    }

    /// The signed counters `2·ones_b − n`, for tests.
    #[cfg(test)]
    fn counters(&mut self) -> [i64; 64] {
        self.drain();
        self.counter.counters()
    }
}

#[cfg(test)]
mod tests;
