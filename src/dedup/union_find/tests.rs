use super::*;
use proptest::prelude::*;

/// Connected components by repeated relabelling: slow and obviously right.
fn naive_components(n: usize, edges: &[(u32, u32)]) -> Vec<usize> {
    let mut label: Vec<usize> = (0..n).collect();
    loop {
        let mut changed = false;
        for &(a, b) in edges {
            let m = label[a as usize].min(label[b as usize]);
            for x in [a, b] {
                if label[x as usize] != m {
                    label[x as usize] = m;
                    changed = true;
                }
            }
        }
        if !changed {
            return label;
        }
    }
}

proptest! {
    #[test]
    fn matches_naive_components(
        n in 1usize..40,
        raw in proptest::collection::vec((0u32..40, 0u32..40), 0..60),
    ) {
        let edges: Vec<(u32, u32)> = raw
            .into_iter()
            .map(|(a, b)| (a % n as u32, b % n as u32))
            .collect();
        let mut uf = UnionFind::new(n);
        for &(a, b) in &edges {
            uf.union(a, b);
        }
        let want = naive_components(n, &edges);
        for a in 0..n {
            for b in 0..n {
                prop_assert_eq!(
                    uf.find(a as u32) == uf.find(b as u32),
                    want[a] == want[b]
                );
            }
            let size = want.iter().filter(|&&l| l == want[a]).count();
            prop_assert_eq!(uf.set_size(a as u32) as usize, size);
        }
    }
}
