//! What `diff` prints for each of its rules on operations, one case each:
//! the cases of `tests/fixtures/diff-variants/cases.diff` are the next
//! release of its `base.yaml`, and their `# expect:` lines are the whole
//! report (`variants` gives the format).

use std::collections::BTreeMap;
use std::path::Path;

use crate::variants;

const DIR: &str = "diff-variants";

#[test]
fn each_diff_rule_of_operations_prints_its_report() {
    let base_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(DIR)
        .join("base.yaml");
    let old = splice_codegen::load_path(&base_path).unwrap_or_else(|d| panic!("{}", d.render()));
    let cases = variants::read(DIR);
    assert!(cases.len() >= 8, "one case per rule, found {}", cases.len());
    let mut actual = BTreeMap::new();
    let mut failures = Vec::new();
    for case in &cases {
        let new = splice_codegen::load_str(&case.text, "new.yaml")
            .unwrap_or_else(|d| panic!("case `{}` does not load:\n{}", case.name, d.render()));
        let lines: Vec<String> = splice_codegen::diff::diff(&old, &new)
            .render("new.yaml")
            .lines()
            .map(str::to_string)
            .collect();
        if lines != case.expected {
            failures.push(format!(
                "{}:\n  expected {:#?}\n  actual   {lines:#?}",
                case.name, case.expected
            ));
        }
        actual.insert(case.name.clone(), lines);
    }
    if std::env::var_os("SPLICE_BLESS_EXPECT").is_some() {
        variants::bless(DIR, &actual);
        return;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
