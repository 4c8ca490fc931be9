//! The store's fast paths against plain references, on the embedded
//! backend: the permuted-table SimHash lookup against a linear scan, and
//! batched ingest against one ingest after another.
#![cfg(feature = "store")]

use std::collections::BTreeSet;

use crate::support::*;
use txtfp::store::{Action, IncomingDocument};

/// The permuted-table lookup against a brute-force scan: with SimHash
/// alone, every decision equals the one a linear scan over all live
/// fingerprints makes (the tables are complete for the radius).
#[test]
fn simhash_lookup_equals_a_linear_scan() {
    use txtfp::{Canonicalizer, Fingerprinter, SimHashFingerprinter, WordTokenizer};
    let dir = temp_dir("store-emb-scan");
    let store = open_in(&dir, |c| {
        (c.simhash, c.minhash, c.chunk_hash) = (true, false, false);
        c.source_priority = vec!["hi".into()];
    });
    let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    // Sample documents and variants with a few words dropped (distances
    // around the radius), from two sources of different priority.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut docs = Vec::new();
    for (n, d) in sample().iter().enumerate().take(120) {
        docs.push((format!("o{n}"), d.text.clone(), "lo"));
        let words: Vec<&str> = d.text.split_whitespace().collect();
        for v in 0..2 {
            let kept: Vec<&str> = words
                .iter()
                .filter(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    !(seed >> 33).is_multiple_of(40)
                })
                .copied()
                .collect();
            docs.push((
                format!("v{n}.{v}"),
                kept.join(" "),
                if v == 0 { "hi" } else { "lo" },
            ));
        }
    }
    let rank = |s: &str| usize::from(s != "hi");
    let mut live: Vec<(String, u64, &str)> = Vec::new();
    let (mut drops, mut replaces) = (0, 0);
    for (id, text, source) in &docs {
        let Ok(f) = fp.fingerprint(text) else {
            continue;
        };
        let matches: Vec<usize> = (0..live.len())
            .filter(|&i| (live[i].1 ^ f.0).count_ones() <= 3)
            .collect();
        let want = if matches.is_empty() {
            Action::Accept
        } else if matches.iter().all(|&i| rank(source) < rank(live[i].2)) {
            Action::Replace
        } else {
            Action::Drop
        };
        let got = store
            .ingest(&IncomingDocument::new(id.clone(), text.clone(), *source))
            .unwrap();
        assert_eq!(got.action, want, "{id}");
        match want {
            Action::Replace => {
                let gone: BTreeSet<String> = matches.iter().map(|&i| live[i].0.clone()).collect();
                assert_eq!(
                    got.superseded.iter().cloned().collect::<BTreeSet<_>>(),
                    gone,
                    "{id}"
                );
                live.retain(|l| !gone.contains(&l.0));
                live.push((id.clone(), f.0, *source));
                replaces += 1;
            }
            Action::Accept => live.push((id.clone(), f.0, *source)),
            _ => drops += 1,
        }
    }
    assert!(
        drops > 20 && replaces > 20,
        "{drops} drops, {replaces} replaces: the data exercises too little"
    );
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A batch decides exactly as one ingest after another, bad documents
/// included (refused one by one, the rest go on).
#[test]
fn batches_decide_as_single_ingests() {
    let (one_dir, batch_dir) = (temp_dir("store-emb-one"), temp_dir("store-emb-batch"));
    let (one, batch) = (open_in(&one_dir, |_| {}), open_in(&batch_dir, |_| {}));
    let mut docs: Vec<IncomingDocument> = Vec::new();
    for (k, d) in sample().iter().enumerate() {
        let src = DATASETS[k % 4];
        docs.push(IncomingDocument::new(
            format!("{src}/{}", d.id),
            d.text.clone(),
            src,
        ));
        if k % 3 == 0 {
            // A copy from another dataset, and now and then a bad document.
            let src = DATASETS[(k + 1) % 4];
            docs.push(IncomingDocument::new(
                format!("{src}/{}", d.id),
                d.text.to_uppercase(),
                src,
            ));
            docs.push(IncomingDocument::new(format!("bad/{k}"), " ... ", src));
        }
    }
    let singles: Vec<_> = docs
        .iter()
        .map(|d| one.ingest(d).map(|r| r.action).ok())
        .collect();
    let mut batched = Vec::new();
    for part in docs.chunks(37) {
        batched.extend(
            batch
                .ingest_batch(part)
                .unwrap()
                .into_iter()
                .map(|r| r.map(|r| r.action).ok()),
        );
    }
    assert_eq!(batched, singles);
    // Fingerprinted ahead, decided later: the same.
    let ahead_dir = temp_dir("store-emb-ahead");
    let ahead = open_in(&ahead_dir, |_| {});
    let mut prepared: Vec<_> = docs
        .chunks(29)
        .map(|part| ahead.prepare_batch(part.to_vec()))
        .collect();
    let mut decided = Vec::new();
    for b in prepared.drain(..) {
        decided.extend(
            ahead
                .ingest_prepared(b)
                .unwrap()
                .into_iter()
                .map(|r| r.map(|r| r.action).ok()),
        );
    }
    assert_eq!(decided, singles);
    // A batch prepared under other hash parameters is refused.
    let other_dir = temp_dir("store-emb-other");
    let other = open_in(&other_dir, |c| c.minhash_ngram = 3);
    let foreign = other.prepare_batch(docs[..2].to_vec());
    assert!(ahead.ingest_prepared(foreign).is_err());
    drop((ahead, other));
    std::fs::remove_dir_all(&ahead_dir).unwrap();
    std::fs::remove_dir_all(&other_dir).unwrap();
    assert!(singles.contains(&Some(Action::Replace)));
    assert!(singles.iter().any(Option::is_none));
    let (a, b) = (one.metrics().unwrap(), batch.metrics().unwrap());
    assert_eq!(
        (a.docs, a.kept, a.duplicates, a.chunks),
        (b.docs, b.kept, b.duplicates, b.chunks)
    );
    drop((one, batch));
    std::fs::remove_dir_all(&one_dir).unwrap();
    std::fs::remove_dir_all(&batch_dir).unwrap();
}
