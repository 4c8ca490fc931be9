use super::*;

fn limits(max_depth: usize, flat: bool) -> Limits {
    Limits {
        max_depth,
        max_nodes: usize::MAX,
        flat,
        spans: true,
    }
}

fn depth(dom: &RcDom) -> usize {
    let mut best = 0;
    let mut stack = vec![(dom.document.clone(), 0usize)];
    while let Some((node, d)) = stack.pop() {
        best = best.max(d);
        for c in node.children.borrow().iter() {
            stack.push((c.clone(), d + 1));
        }
    }
    best
}

#[test]
fn cap_bounds_the_tree_depth() {
    let html = format!("{}deep text", "<div>".repeat(5_000));
    let dom = parse(&html, limits(64, false)).unwrap();
    let d = depth(&dom);
    assert!((60..=70).contains(&d), "depth {d}");
    let dom = parse(&html, limits(10_000, false)).unwrap();
    assert!(depth(&dom) > 5_000);
}

#[test]
fn formatting_reconstruction_is_bounded_too() {
    let html: String = (0..3_000)
        .map(|i| format!("<div><b id={i}>x</div>"))
        .collect::<String>()
        + "<p>tail";
    let dom = parse(&html, limits(64, false)).unwrap();
    assert!(depth(&dom) < 200, "depth {}", depth(&dom));
}

#[test]
fn node_budget_stops_the_parse_and_flat_mode_fits() {
    // Each <div> re-opens 50 distinct closed-but-active <b>s: ~50 nodes
    // per 12 input bytes.
    let html: String = (0..50)
        .map(|i| format!("<p><b id={i}>x</p>"))
        .collect::<String>()
        + &"<div>x</div>".repeat(2_000);
    let budget = Limits {
        max_nodes: 20_000,
        ..limits(128, false)
    };
    assert!(parse(&html, budget).is_none());
    let flat = Limits {
        flat: true,
        ..budget
    };
    let dom = parse(&html, flat).unwrap();
    assert!(depth(&dom) < 10);
}

#[test]
fn spans_are_clamped() {
    let dom = parse(
        "<table><tr><td colspan=99999 rowspan=999999>a<td colspan=7 rowspan=x>b",
        limits(128, false),
    )
    .unwrap();
    let mut values = Vec::new();
    let mut stack = vec![dom.document.clone()];
    while let Some(node) = stack.pop() {
        if let html2text::Element { attrs, .. } = &node.data {
            for a in attrs.borrow().iter() {
                values.push(format!("{}={}", &*a.name.local, &*a.value));
            }
        }
        stack.extend(node.children.borrow().iter().cloned());
    }
    values.sort();
    assert_eq!(
        values,
        ["colspan=1000", "colspan=7", "rowspan=65534", "rowspan=x"]
    );
}
