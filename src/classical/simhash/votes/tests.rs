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
