// A type that holds itself through an optional member (`Node { next: Node? }`),
// directly or through another type (`Chain { link: Link? }`, `Link { chain:
// Chain? }`), compiles: the member is boxed. A list (`Tree[]`) needs no box,
// nor does a member whose type never holds its owner (`Tree.parent_chain`).
// Values round-trip through JSON unchanged.

splice_macros::taxonomy!("recursive.yaml");

fn main() {
    let node = Node {
        label: "a".to_owned(),
        next: Some(Box::new(Node { label: "b".to_owned(), next: None })),
    };
    let tree = Tree {
        children: vec![Tree { children: Vec::new(), parent_chain: None }],
        parent_chain: Some(Chain {
            link: Some(Box::new(Link { chain: Some(Box::new(Chain { link: None })) })),
        }),
    };
    let envelope = ErrorEnvelope::cycle_found(node.clone()).tree(tree.clone()).build();
    let json = serde_json::to_value(&envelope).unwrap();
    assert_eq!(json["context"]["node"]["next"]["label"], "b");
    assert_eq!(json["context"]["tree"]["parent_chain"]["link"]["chain"]["link"], serde_json::Value::Null);
    let back: ErrorEnvelope = serde_json::from_value(json).unwrap();
    assert_eq!(back, envelope);
}
