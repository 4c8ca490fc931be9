//! The server functions are safe to repeat (the client resends a round
//! whose reply it lost) and fenced (a batch applies once per group, a
//! voided batch cannot commit). Needs `TXTFP_REDIS_CLUSTER`; skips
//! without it unless `TXTFP_REQUIRE_REDIS=1`.

use redis::Value;

use super::layout::{BatchResult, band_field, chunk_field, id_field};
use super::{ClusterBackend, fcall, num};
use crate::store::backend::StoreBackend;

fn backend(test: &str) -> Option<ClusterBackend> {
    let Ok(nodes) = std::env::var("TXTFP_REDIS_CLUSTER") else {
        assert!(
            std::env::var("TXTFP_REQUIRE_REDIS").map_or(true, |v| v != "1"),
            "TXTFP_REQUIRE_REDIS=1 but TXTFP_REDIS_CLUSTER is not set"
        );
        return None;
    };
    let nodes: Vec<String> = nodes.split(',').map(str::to_owned).collect();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let prefix = format!("unit-{test}-{}-{nanos}", std::process::id());
    Some(ClusterBackend::open(&nodes, &prefix).unwrap())
}

/// Every field and value of group `g`.
fn group(b: &ClusterBackend, g: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
    let (key, slot) = &b.group_keys[g as usize];
    let mut c = redis::cmd("HGETALL");
    c.arg(key);
    let v = b.net.round(&[(*slot, c)]).unwrap().remove(0);
    let mut pairs: Vec<(Vec<u8>, Vec<u8>)> = redis::from_redis_value(v).unwrap();
    pairs.sort();
    pairs
}

fn call_group(b: &ClusterBackend, name: &str, g: u32, args: Vec<Vec<u8>>) -> Value {
    let (key, slot) = &b.group_keys[g as usize];
    let c = fcall(name, &[key.as_bytes()], args);
    b.net.round(&[(*slot, c)]).unwrap().remove(0)
}

#[test]
fn appends_applies_and_commits_repeat_safely() {
    let Some(b) = backend("repeat") else { return };
    let fields = [id_field("doc"), band_field(1, 7), chunk_field(&[3; 32])];
    // A member list, a band list and a chunk marker, each in its own group.
    for f in &fields {
        let g = super::group_of(f, b.groups);
        let append = |n: u64| {
            vec![
                n.to_string().into_bytes(),
                b"10".to_vec(),
                f.clone(),
                n.to_be_bytes().to_vec(),
            ]
        };
        let first = call_group(&b, "txtfp_append", g, append(5));
        let state = group(&b, g);
        let again = call_group(&b, "txtfp_append", g, append(5));
        if f[0] == b'c' {
            // A chunk marker answers as it is: now held first by the same
            // batch, which the client reads as "no earlier holder".
            let Value::Array(items) = &again else {
                panic!("{again:?}")
            };
            let Some(Value::BulkString(m)) = items.get(1) else {
                panic!("{again:?}")
            };
            assert_eq!(super::layout::chunk_marker(m).unwrap(), (5, None));
        } else {
            assert_eq!(first, again, "a repeated append answers the same");
        }
        assert_eq!(group(&b, g), state, "and changes nothing");
        // A later batch sees the earlier member.
        let later = call_group(&b, "txtfp_append", g, append(9));
        let Value::Array(items) = later else {
            panic!("{later:?}")
        };
        assert_eq!(items.len(), 2, "one (index, answer) pair");
    }
    // Apply: a batch edits a group once, whoever sends it.
    let f = band_field(1, 7);
    let g = super::group_of(&f, b.groups);
    let mut r = BatchResult::default();
    r.push(b.groups, b'R', f.clone(), 5u64.to_be_bytes().to_vec());
    let ops = |a: u64| {
        let mut args = vec![a.to_string().into_bytes()];
        for op in &r.groups[&g] {
            args.extend([vec![op.code], op.field.clone(), op.payload.clone()]);
        }
        args
    };
    assert_eq!(num(&call_group(&b, "txtfp_apply", g, ops(12))), Some(1));
    let state = group(&b, g);
    assert_eq!(num(&call_group(&b, "txtfp_apply", g, ops(12))), Some(0));
    assert_eq!(
        num(&call_group(&b, "txtfp_apply", g, ops(11))),
        Some(0),
        "an older batch"
    );
    assert_eq!(group(&b, g), state);
    let members = state.iter().find(|(k, _)| *k == f).map(|(_, v)| v.clone());
    assert_eq!(
        members,
        Some(9u64.to_be_bytes().to_vec()),
        "5 removed, 9 kept"
    );

    // Reserve, append turn, commit: a retried reservation gets the same
    // numbers; a retried commit counts once; a voided batch cannot commit.
    let reserve = |token: &str| {
        num(&b
            .ctl_call(
                "txtfp_reserve",
                &[],
                vec![b"3".to_vec(), b"60000".to_vec(), token.as_bytes().to_vec()],
            )
            .unwrap())
    };
    let a = reserve("t1").unwrap();
    assert_eq!(reserve("t1"), Some(a));
    let c = reserve("t2").unwrap();
    assert_eq!(c, a + 3);
    let turn = |n: i64, phase: &str| {
        num(&b
            .ctl_call(
                "txtfp_turn",
                &[],
                vec![
                    n.to_string().into_bytes(),
                    phase.as_bytes().to_vec(),
                    b"60000".to_vec(),
                ],
            )
            .unwrap())
    };
    assert_eq!(turn(a, "A"), Some(1));
    assert_eq!(turn(c, "A"), Some(0), "waits for the earlier batch");
    let appended = |n: i64| {
        num(&b
            .ctl_call(
                "txtfp_appended",
                &[],
                vec![n.to_string().into_bytes(), b"60000".to_vec()],
            )
            .unwrap())
    };
    assert_eq!(appended(a), Some(1));
    assert_eq!(appended(a), Some(1), "repeated");
    assert_eq!(turn(c, "A"), Some(1));
    assert_eq!(turn(a, "D"), Some(1));
    let (counters, pending) = (b.key("counters"), b.key("pending"));
    let commit = |n: i64| {
        num(&b
            .ctl_call(
                "txtfp_commit",
                &[&counters, &pending],
                vec![
                    n.to_string().into_bytes(),
                    b"result".to_vec(),
                    b"docs".to_vec(),
                    b"3".to_vec(),
                ],
            )
            .unwrap())
    };
    assert_eq!(commit(a), Some(1));
    assert_eq!(commit(a), Some(1), "repeated");
    assert_eq!(b.counters().unwrap().get("docs"), Some(&3), "counted once");
    // Batch c gives up: it can neither append-commit nor commit after.
    b.ctl_call("txtfp_abandon", &[], vec![c.to_string().into_bytes()])
        .unwrap();
    assert_eq!(appended(c), Some(0));
    assert_eq!(turn(c, "D"), Some(-1));
    assert_eq!(commit(c), Some(0));
}
