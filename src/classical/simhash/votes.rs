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
mod tests {
    use super::super::kernel::tests::reference;
    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    fn check(hashes: &[u64]) {
        let (acc, bits) = reference(hashes);
        for k in VoteKernel::all_available() {
            // One push at a time (batches of BATCH) ...
            let mut v = TfVotes::with_kernel(k);
            for &h in hashes {
                v.push(h);
            }
            assert_eq!(v.votes(), hashes.len() as u64, "{k:?}");
            assert_eq!(v.counters(), acc, "{k:?}, n = {}", hashes.len());
            assert_eq!(v.signature(), bits, "{k:?}, n = {}", hashes.len());
            // ... and the whole slice in one kernel call.
            let mut c = BitCounter::new();
            k.add_all(&mut c, hashes);
            assert_eq!(c.counters(), acc, "{k:?}, one call");
        }
    }

    #[test]
    fn detection_offers_avx512bw_where_the_cpu_has_it() {
        let all = VoteKernel::all_available();
        assert_eq!(all[0], VoteKernel(Level::Scalar));
        assert_eq!(*all.last().unwrap(), VoteKernel::detect());
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        assert_eq!(all.len() == 2, Avx512Bw::detect().is_some());
    }

    #[test]
    fn every_flush_boundary_with_all_ones_and_all_zeros() {
        // A lane byte that gains one per vote overflows after 255: every
        // count around 255·m, and around the batch size, is checked.
        let mut ns: Vec<usize> = (0..4).flat_map(|m| [255 * m, 255 * m + 1]).collect();
        ns.extend([1, 63, 64, 65, 127, 128, 129, 254, 256, 509, 511, 1000, 4096]);
        for n in ns {
            for h in [u64::MAX, 0, 0xaaaa_aaaa_aaaa_aaaa, 0x8000_0000_0000_0001] {
                check(&alloc::vec![h; n]);
            }
        }
    }

    #[test]
    fn empty_has_no_votes() {
        for k in VoteKernel::all_available() {
            let mut v = TfVotes::with_kernel(k);
            assert_eq!((v.votes(), v.signature()), (0, 0));
        }
    }

    proptest! {
        #[test]
        fn kernels_match_reference(hashes in prop::collection::vec(any::<u64>(), 0..1300)) {
            check(&hashes);
        }

        /// Few distinct hashes give counts near every lane limit.
        #[test]
        fn kernels_match_reference_on_skewed_counts(
            pool in prop::collection::vec(any::<u64>(), 1..4),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..2000),
        ) {
            let hashes: Vec<u64> = picks.iter().map(|i| pool[i.index(pool.len())]).collect();
            check(&hashes);
        }

        /// A counter that was already partly filled one vote at a time
        /// continues correctly through the batch kernels.
        #[test]
        fn kernels_continue_a_partly_filled_counter(
            before in prop::collection::vec(any::<u64>(), 0..600),
            after in prop::collection::vec(any::<u64>(), 0..600),
        ) {
            let all: Vec<u64> = before.iter().chain(&after).copied().collect();
            let (acc, _) = reference(&all);
            for k in VoteKernel::all_available() {
                let mut c = BitCounter::new();
                for &h in &before {
                    c.add(h);
                }
                k.add_all(&mut c, &after);
                prop_assert_eq!(c.counters(), acc, "{:?}", k);
            }
        }
    }
}
