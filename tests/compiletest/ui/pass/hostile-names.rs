// Member names each target spells otherwise (`1x` is the Rust field `_1x`,
// `self` is `self_`, `crate` is `crate_`, `__proto__` is `proto`) keep their
// wire names: an envelope serializes to exactly the members the spec
// declares, has the members the expansion's own output shape lists, and
// reads back unchanged.

splice_macros::taxonomy!("hostile-names.yaml");

fn main() {
    let pair = Pair { lambda: "l".to_owned(), import: 3, def: None };
    let envelope = ErrorEnvelope::bad_thing("c", 2, pair).global("g").build();
    assert_eq!(envelope._1x, 1);
    assert_eq!(envelope.self_, "bad c");
    let json = serde_json::to_value(&envelope).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = ["1x", "class", "self", "type", "inner", "@meta", "crate"];
    let mut keys_sorted = keys.clone();
    keys_sorted.sort_unstable();
    expected.sort_unstable();
    assert_eq!(keys_sorted, expected, "{json}");
    assert_eq!(json["inner"]["None"], 1);
    assert_eq!(json["inner"]["__hidden"], false);
    assert_eq!(json["class"], "BAD_THING");
    assert_eq!(json["@meta"]["constructor"], 9007199254740991_i64);
    assert_eq!(json["@meta"]["__proto__"], "input");
    assert_eq!(json["@meta"]["a-b"][0], "Retry");
    assert_eq!(json["crate"]["pair"]["import"], 3);
    assert_eq!(json["crate"]["global"], "g");
    let shape: serde_json::Value = serde_json::from_str(ENVELOPE_OUTPUT_SHAPE).unwrap();
    for name in shape["required"].as_array().unwrap() {
        assert!(json.get(name.as_str().unwrap()).is_some(), "the shape requires {name}: {json}");
    }
    for name in keys {
        assert!(shape["properties"].get(name).is_some(), "the shape has no `{name}`");
    }
    let back: ErrorEnvelope = serde_json::from_value(json).unwrap();
    assert_eq!(back, envelope);
}
