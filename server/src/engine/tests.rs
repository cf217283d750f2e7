//! Unit tests of the engine's rules, one behaviour per test.

use super::*;

fn edit<'a>(old_string: &'a str, new_string: &'a str) -> Edit<'a> {
    Edit {
        old_string,
        new_string,
        replace_all: false,
    }
}

fn all<'a>(old_string: &'a str, new_string: &'a str) -> Edit<'a> {
    Edit {
        old_string,
        new_string,
        replace_all: true,
    }
}

/// Applies and returns the new content as a string, panicking on failure.
fn ok(original: &str, edits: &[Edit<'_>]) -> String {
    let outcome = apply(original.as_bytes(), edits).unwrap_or_else(|f| panic!("{f}: {f:?}"));
    String::from_utf8(outcome.content).unwrap()
}

#[test]
fn single_replacement_reports_count_and_line() {
    let outcome = apply(b"one\ntwo\nthree\n", &[edit("two", "2")]).unwrap();
    assert_eq!(outcome.content, b"one\n2\nthree\n");
    assert!(outcome.changed);
    assert_eq!(
        outcome.per_edit,
        [EditReport {
            replacements: 1,
            first_line: 2,
            eol_translated: false
        }]
    );
    assert_eq!(outcome.line_ending, LineEnding::Lf);
    assert!(!outcome.bom);
    assert!(!outcome.eol_translated);
}

#[test]
fn edits_apply_in_order_to_the_previous_result() {
    // Edit 1 creates the text edit 2 matches.
    let out = ok(
        "fn a() {}\n",
        &[edit("a()", "renamed()"), edit("renamed", "b")],
    );
    assert_eq!(out, "fn b() {}\n");
    // Edit 2 cannot match text edit 1 removed.
    let err = apply(b"x = 1\n", &[edit("x", "y"), edit("x", "z")]).unwrap_err();
    assert!(matches!(err, Failure::NotFound { edit_index: 1, .. }));
}

#[test]
fn report_lines_are_counted_after_earlier_edits() {
    let outcome = apply(b"a\nb\nc\n", &[edit("a\n", "x\ny\nz\n"), edit("c", "C")]).unwrap();
    assert_eq!(outcome.per_edit[0].first_line, 1);
    assert_eq!(outcome.per_edit[1].first_line, 5);
}

#[test]
fn a_failure_returns_nothing_applied() {
    let err = apply(
        b"alpha beta gamma",
        &[edit("alpha", "A"), edit("beta", "B"), edit("delta", "D")],
    )
    .unwrap_err();
    let Failure::NotFound {
        edit_index,
        snippet,
        snippet_start_line,
        ..
    } = err
    else {
        panic!("expected NotFound, got {err:?}");
    };
    assert_eq!(edit_index, 2);
    // The snippet shows the text as the earlier edits of the call left it.
    assert_eq!(snippet, "A B gamma");
    assert_eq!(snippet_start_line, 1);
}

#[test]
fn replace_all_replaces_every_non_overlapping_occurrence() {
    let outcome = apply(b"aaaaa b aa", &[all("aa", "x")]).unwrap();
    assert_eq!(outcome.content, b"xxa b x");
    assert_eq!(outcome.per_edit[0].replacements, 3);
    assert_eq!(outcome.per_edit[0].first_line, 1);
    assert_eq!(ok("a.b.c", &[all(".", "::")]), "a::b::c");
    assert_eq!(ok("abab", &[all("ab", "abab")]), "abababab");
}

#[test]
fn replace_all_with_no_occurrence_is_not_found() {
    let err = apply(b"abc", &[all("z", "y")]).unwrap_err();
    assert!(matches!(err, Failure::NotFound { edit_index: 0, .. }));
}

#[test]
fn replace_all_with_a_single_occurrence_is_fine() {
    let outcome = apply(b"x\nneedle\n", &[all("needle", "pin")]).unwrap();
    assert_eq!(outcome.content, b"x\npin\n");
    assert_eq!(outcome.per_edit[0].replacements, 1);
    assert_eq!(outcome.per_edit[0].first_line, 2);
}

#[test]
fn ambiguity_reports_every_location_with_line_and_column() {
    let text = "let x = 1;\nlet y = x;\n  foo(x);\n";
    let err = apply(text.as_bytes(), &[edit("x", "z")]).unwrap_err();
    let Failure::Ambiguous {
        edit_index,
        count,
        locations,
        lines,
    } = err
    else {
        panic!("expected Ambiguous, got {err:?}");
    };
    assert_eq!((edit_index, count), (0, 3));
    let at: Vec<(usize, usize)> = locations.iter().map(|l| (l.line, l.column)).collect();
    assert_eq!(at, [(1, 5), (2, 9), (3, 7)]);
    assert_eq!(lines, [1, 2, 3]);
    assert_eq!(locations[0].snippet, "let x = 1;\nlet y = x;\n  foo(x);");
}

#[test]
fn ambiguity_snippets_hold_three_lines_each_side() {
    let mut text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
    text = text.replace("l10\n", "dup\n").replace("l15\n", "dup\n");
    let err = apply(text.as_bytes(), &[edit("dup", "x")]).unwrap_err();
    let Failure::Ambiguous { locations, .. } = err else {
        panic!("expected Ambiguous, got {err:?}");
    };
    assert_eq!(locations[0].line, 10);
    assert_eq!(locations[0].snippet, "l7\nl8\nl9\ndup\nl11\nl12\nl13");
    assert_eq!(locations[1].line, 15);
    assert_eq!(locations[1].snippet, "l12\nl13\nl14\ndup\nl16\nl17\nl18");
}

#[test]
fn ambiguity_columns_count_characters_not_bytes() {
    let err = apply("é€x x".as_bytes(), &[edit("x", "y")]).unwrap_err();
    let Failure::Ambiguous { locations, .. } = err else {
        panic!("expected Ambiguous, got {err:?}");
    };
    assert_eq!((locations[0].column, locations[1].column), (3, 5));
}

#[test]
fn ambiguity_locations_are_capped_but_the_count_is_not() {
    let text = "hit\n".repeat(12);
    let err = apply(text.as_bytes(), &[edit("hit", "miss")]).unwrap_err();
    let Failure::Ambiguous {
        count, locations, ..
    } = err
    else {
        panic!("expected Ambiguous, got {err:?}");
    };
    assert_eq!(count, 12);
    assert_eq!(locations.len(), MAX_MATCH_LOCATIONS);
    let lines: Vec<usize> = locations.iter().map(|l| l.line).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5]);
}

#[test]
fn overlapping_occurrences_make_a_single_edit_ambiguous() {
    let err = apply(b"------", &[edit("----", "====")]).unwrap_err();
    assert!(
        matches!(err, Failure::Ambiguous { count: 3, .. }),
        "{err:?}"
    );
    // replace_all takes them left to right without overlap.
    assert_eq!(ok("------", &[all("----", "====")]), "====--");
}

#[test]
fn no_op_edit_changes_nothing_and_is_never_ambiguous() {
    let outcome = apply(b"a b a", &[edit("a", "a")]).unwrap();
    assert_eq!(outcome.content, b"a b a");
    assert!(!outcome.changed);
    assert_eq!(outcome.per_edit[0].replacements, 0);
    assert_eq!(outcome.per_edit[0].first_line, 1);
    let outcome = apply(b"a b a", &[all("a", "a")]).unwrap();
    assert_eq!(outcome.per_edit[0].replacements, 0);
}

#[test]
fn no_op_edit_must_still_be_found() {
    let err = apply(b"abc", &[edit("zzz", "zzz")]).unwrap_err();
    assert!(matches!(err, Failure::NotFound { edit_index: 0, .. }));
}

#[test]
fn edits_that_cancel_out_report_unchanged() {
    let outcome = apply(b"abc", &[edit("b", "X"), edit("X", "b")]).unwrap();
    assert_eq!(outcome.content, b"abc");
    assert!(!outcome.changed);
}

#[test]
fn empty_old_string_is_refused_without_panicking() {
    let err = apply(b"abc", &[edit("b", "c"), edit("", "x")]).unwrap_err();
    assert_eq!(err, Failure::EmptyOldString { edit_index: 1 });
}

#[test]
fn invalid_utf8_reports_the_first_bad_byte() {
    let err = apply(b"ok\n\xC3\x28 rest", &[edit("ok", "no")]).unwrap_err();
    assert_eq!(err, Failure::InvalidEncoding { byte_offset: 3 });
    let err = apply(b"\xEF\xBB\xBFabc\xFF", &[edit("a", "b")]).unwrap_err();
    assert_eq!(err, Failure::InvalidEncoding { byte_offset: 6 });
    // A truncated multi-byte sequence at the very end.
    let err = apply(b"abc\xE2\x82", &[edit("a", "b")]).unwrap_err();
    assert_eq!(err, Failure::InvalidEncoding { byte_offset: 3 });
    assert_eq!(err.edit_index(), None);
}

#[test]
fn bom_is_preserved_and_never_needed_in_old_string() {
    let outcome = apply(b"\xEF\xBB\xBFfirst\nsecond\n", &[edit("first", "1st")]).unwrap();
    assert_eq!(outcome.content, b"\xEF\xBB\xBF1st\nsecond\n");
    assert!(outcome.bom);
    // Replacing the whole text keeps the BOM, and line/column start after it.
    let outcome = apply(b"\xEF\xBB\xBFx", &[edit("x", "y")]).unwrap();
    assert_eq!(outcome.content, b"\xEF\xBB\xBFy");
    let err = apply(b"\xEF\xBB\xBFx x", &[edit("x", "y")]).unwrap_err();
    let Failure::Ambiguous { locations, .. } = err else {
        panic!("expected Ambiguous, got {err:?}");
    };
    assert_eq!((locations[0].line, locations[0].column), (1, 1));
    assert_eq!(locations[0].snippet, "x x");
}

#[test]
fn missing_final_newline_stays_missing() {
    assert_eq!(ok("a\nb", &[edit("b", "c")]), "a\nc");
    assert_eq!(ok("a\r\nb", &[edit("a\nb", "x\ny")]), "x\r\ny");
}

#[test]
fn lf_old_string_matches_crlf_text_and_writes_crlf() {
    let text = "fn main() {\r\n    old();\r\n}\r\n";
    let outcome = apply(
        text.as_bytes(),
        &[edit("    old();\n}\n", "    new();\n    more();\n}\n")],
    )
    .unwrap();
    assert_eq!(
        outcome.content,
        b"fn main() {\r\n    new();\r\n    more();\r\n}\r\n"
    );
    assert_eq!(outcome.line_ending, LineEnding::Crlf);
    assert!(outcome.eol_translated);
    assert!(outcome.per_edit[0].eol_translated);
    assert_eq!(outcome.per_edit[0].first_line, 2);
}

#[test]
fn crlf_file_single_line_old_string_gets_crlf_line_breaks_in_new_string() {
    // old_string has no line break; the lines it adds follow the file.
    let out = ok("a\r\nb\r\n", &[edit("a", "a\nextra")]);
    assert_eq!(out, "a\r\nextra\r\nb\r\n");
}

#[test]
fn crlf_file_leading_lf_old_string_never_splits_a_crlf_pair() {
    // Joining two lines: the \r must go with the \n.
    assert_eq!(ok("a\r\nb\r\n", &[edit("\nb", "b")]), "ab\r\n");
}

#[test]
fn explicit_crlf_in_old_string_is_taken_literally() {
    // The caller spelled \r\n itself, so its new_string bytes are literal:
    // this is how a CRLF file is converted to LF.
    let outcome = apply(b"a\r\nb\r\n", &[all("\r\n", "\n")]).unwrap();
    assert_eq!(outcome.content, b"a\nb\n");
    assert_eq!(outcome.per_edit[0].replacements, 2);
    assert!(!outcome.eol_translated);
}

#[test]
fn crlf_edits_round_trip_with_lf_edits() {
    let lf = "one\ntwo\nthree\nfour\n";
    let crlf = lf.replace('\n', "\r\n");
    let edits = [
        edit("two\nthree\n", "2\n3\n"),
        all("o", "0"),
        edit("f0ur\n", "4\n5\n"),
    ];
    let from_lf = ok(lf, &edits);
    let from_crlf = ok(&crlf, &edits);
    assert_eq!(from_lf, "0ne\n2\n3\n4\n5\n");
    assert_eq!(from_crlf, from_lf.replace('\n', "\r\n"));
}

#[test]
fn mixed_file_matches_either_form_and_keeps_other_endings() {
    let text = "a\nb\r\nc\nd\r\n";
    // Only the LF form exists: written as given.
    let outcome = apply(text.as_bytes(), &[edit("a\nb", "x\ny")]).unwrap();
    assert_eq!(outcome.content, b"x\ny\r\nc\nd\r\n");
    assert_eq!(outcome.line_ending, LineEnding::Mixed);
    assert!(!outcome.eol_translated);
    // Only the CRLF form exists: matched and written as CRLF.
    let outcome = apply(text.as_bytes(), &[edit("b\nc", "y\nz")]).unwrap();
    assert_eq!(outcome.content, b"a\ny\r\nz\nd\r\n");
    assert!(outcome.eol_translated);
    // No line break in old_string: new_string is written as given.
    assert_eq!(ok(text, &[edit("c", "c\nC")]), "a\nb\r\nc\nC\nd\r\n");
}

#[test]
fn mixed_file_lf_and_crlf_copies_are_ambiguous() {
    let text = "fn a() {\n    x();\n}\r\nfn b() {\r\n    x();\r\n}\r\n";
    let err = apply(text.as_bytes(), &[edit("    x();\n}", "    y();\n}")]).unwrap_err();
    let Failure::Ambiguous {
        count, locations, ..
    } = err
    else {
        panic!("expected Ambiguous, got {err:?}");
    };
    assert_eq!(count, 2);
    let lines: Vec<usize> = locations.iter().map(|l| l.line).collect();
    assert_eq!(lines, [2, 5]);
}

#[test]
fn mixed_file_replace_all_writes_each_occurrence_in_its_own_form() {
    let text = "x\ny\r\nx\r\ny\nx\ny";
    let outcome = apply(text.as_bytes(), &[all("x\ny", "1\n2")]).unwrap();
    assert_eq!(outcome.content, b"1\n2\r\n1\r\n2\n1\n2");
    assert_eq!(outcome.per_edit[0].replacements, 3);
    assert!(outcome.eol_translated);
}

#[test]
fn line_break_removal_keeps_the_original_convention() {
    // Edit 1 removes the only line break; edit 2 adds one back as CRLF.
    let out = ok("a\r\nb", &[edit("a\nb", "ab"), edit("ab", "a\nb")]);
    assert_eq!(out, "a\r\nb");
}

#[test]
fn crlf_style_is_tracked_across_edits() {
    // Edit 1 makes the file mixed; edit 2's single-line old_string then
    // writes its line break as given.
    let out = ok("a\r\nb\r\nc", &[edit("a\r\n", "a\n"), edit("c", "c\nd")]);
    assert_eq!(out, "a\nb\r\nc\nd");
    // Edit 1 keeps the file pure CRLF; edit 2 translates.
    let out = ok("a\r\nb\r\nc", &[edit("a\r\n", "A\r\n"), edit("c", "c\nd")]);
    assert_eq!(out, "A\r\nb\r\nc\r\nd");
}

#[test]
fn lone_carriage_returns_are_not_line_breaks() {
    let outcome = apply(b"a\rb\rc", &[edit("b", "x\ny")]).unwrap();
    assert_eq!(outcome.content, b"a\rx\ny\rc");
    assert_eq!(outcome.line_ending, LineEnding::None);
}

#[test]
fn not_found_snippet_is_bounded_and_placed_near_the_target() {
    let text: String = (1..=200)
        .map(|i| format!("    let v{i} = {i};\n"))
        .collect();
    let err = apply(
        text.as_bytes(),
        &[edit(
            "let v120 = 120;\nlet v121 = 999;\nlet v122 = 122;",
            "x",
        )],
    )
    .unwrap_err();
    let Failure::NotFound {
        snippet,
        snippet_start_line,
        ..
    } = err
    else {
        panic!("expected NotFound, got {err:?}");
    };
    let lines: Vec<&str> = snippet.lines().collect();
    assert_eq!(lines.len(), NOT_FOUND_LINES);
    assert!(lines.contains(&"    let v121 = 121;"));
    assert_eq!(lines[0], "    let v114 = 114;");
    assert_eq!(snippet_start_line, 114);
}

/// Issue 12: a variable renamed since the model read the file changes every
/// line of its `old_string`, so no line matches whole; the rare tokens still
/// place the excerpt on the block, and its start line is reported.
#[test]
fn not_found_finds_a_block_whose_every_line_is_stale() {
    let mut text = String::new();
    for i in 0..60 {
        text.push_str(&format!(
            "fn step_{i}(input: &State) -> u32 {{\n    let total = input.base * {k};\n    total + {i}\n}}\n\n",
            k = i + 7
        ));
    }
    // The file says `total`; the model remembers `sum`.
    let old = "    let sum = input.base * 48;\n    sum + 41\n}";
    let err = apply(text.as_bytes(), &[edit(old, "    0\n}")]).unwrap_err();
    let Failure::NotFound {
        snippet,
        snippet_start_line,
        ..
    } = err
    else {
        panic!("expected NotFound, got {err:?}");
    };
    let lines: Vec<&str> = snippet.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "    let total = input.base * 48;")
        .unwrap_or_else(|| panic!("the block is not in the excerpt:\n{snippet}"));
    assert_eq!(lines[at + 1], "    total + 41");
    // Function 41 starts at line 41 * 5 + 1; its second line is the target.
    assert_eq!(snippet_start_line + at, 41 * 5 + 2);
}

#[test]
fn not_found_in_a_short_file_shows_all_of_it() {
    let err = apply(b"tiny\nfile\n", &[edit("nothing like it", "x")]).unwrap_err();
    assert_eq!(
        err,
        Failure::NotFound {
            edit_index: 0,
            snippet: "tiny\nfile".to_owned(),
            snippet_start_line: 1,
            lookalike: None,
            candidates: Vec::new(),
        }
    );
}

#[test]
fn empty_file_and_empty_edit_list() {
    let outcome = apply(b"", &[]).unwrap();
    assert_eq!(outcome.content, b"");
    assert!(!outcome.changed);
    assert_eq!(outcome.line_ending, LineEnding::None);
    let err = apply(b"", &[edit("a", "b")]).unwrap_err();
    assert_eq!(
        err,
        Failure::NotFound {
            edit_index: 0,
            snippet: String::new(),
            snippet_start_line: 1,
            lookalike: None,
            candidates: Vec::new(),
        }
    );
}

#[test]
fn deleting_text_shrinks_the_buffer_in_place() {
    let out = ok(
        "keep DROP keep DROPPED",
        &[edit("DROP ", ""), edit("DROPPED", "")],
    );
    assert_eq!(out, "keep keep ");
}

#[test]
fn failure_messages_are_lowercase_and_precise() {
    let err = apply(b"x x", &[edit("x", "y")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "edit 0: old_string occurs 2 times; add context to make it unique or set replace_all"
    );
    assert_eq!(err.edit_index(), Some(0));
}

// Found by the `engine` fuzz target: chained `replace_all` edits, each
// doubling the text, took a 377-byte input past 10 s and toward an
// exponential allocation. `apply_capped` stops at the cap.
#[test]
fn capped_apply_stops_exponential_growth_at_the_cap() {
    // 40 doublings: a terabyte uncapped.
    let names: Vec<String> = (0..=40).map(|i| format!("<{i}>")).collect();
    let doubled: Vec<String> = names.iter().map(|n| n.repeat(2)).collect();
    let edits: Vec<Edit<'_>> = (0..40).map(|i| all(&names[i], &doubled[i + 1])).collect();
    let err = apply_capped(b"<0>", &edits, 1 << 20).unwrap_err();
    // After edit i the text is 2^(i+1) copies of `<i+1>`: edit 17 makes
    // exactly 1 MiB (2^18 copies of a 4-byte name), edit 18 twice that.
    assert_eq!(
        err,
        CappedFailure::TooLarge {
            edit_index: 18,
            size: 4 << 19
        }
    );
    assert_eq!(
        err.to_string(),
        "edit 18: the file would grow to 2097152 bytes, more than allowed"
    );
}

#[test]
fn capped_replace_all_reports_the_exact_size_it_would_have_had() {
    let file = "a-".repeat(100);
    let err = apply_capped(file.as_bytes(), &[all("a", "xyz")], 250).unwrap_err();
    assert_eq!(
        err,
        CappedFailure::TooLarge {
            edit_index: 0,
            size: 400
        }
    );
    // Exactly at the cap is allowed.
    let outcome = apply_capped(file.as_bytes(), &[all("a", "xyz")], 400).unwrap();
    assert_eq!(outcome.content.len(), 400);
}

#[test]
fn capped_single_replacement_and_no_op_are_checked_too() {
    let err = apply_capped(b"\xEF\xBB\xBFab", &[edit("a", "0123")], 7).unwrap_err();
    assert_eq!(
        err,
        CappedFailure::TooLarge {
            edit_index: 0,
            size: 8
        }
    );
    // A file already over the cap cannot be kept by a no-op edit...
    let err = apply_capped(b"abc", &[edit("b", "b")], 2).unwrap_err();
    assert_eq!(
        err,
        CappedFailure::TooLarge {
            edit_index: 0,
            size: 3
        }
    );
    // ...but an edit that brings it under the cap succeeds.
    let outcome = apply_capped(b"abc", &[edit("abc", "x")], 2).unwrap();
    assert_eq!(outcome.content, b"x");
}

#[test]
fn capped_apply_reports_edit_failures_first() {
    let edits = [edit("missing", "a much longer replacement")];
    assert!(matches!(
        apply_capped(b"x", &edits, 1),
        Err(CappedFailure::Edit(Failure::NotFound { edit_index: 0, .. }))
    ));
    assert!(matches!(
        apply_capped(b"x x", &[edit("x", "yyyyyy")], 1),
        Err(CappedFailure::Edit(Failure::Ambiguous { count: 2, .. }))
    ));
    assert_eq!(
        apply_capped(b"x", &[edit("x", "y")], 1).unwrap(),
        apply(b"x", &[edit("x", "y")]).unwrap()
    );
}

/// `n` numbered lines, `line i` each.
fn numbered_lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn every_later_edit_is_located_after_a_failure() {
    let text = numbered_lines(100);
    let edits = [
        edit("line 10\n", "line ten\n"),
        // Stale: the file says `line 20`.
        edit("line 20 (old)\nline 21\n", "x\n"),
        // Applies, and is located after edit 0 applied.
        edit("line ten\nline 11\n", "line ten\nline eleven\n"),
        // Stale too, inside the region of edit 1's excerpt.
        edit("line 24 (old)\n", "y\n"),
        // Occurs 11 times (lines 3 and 30-39).
        edit("line 3", "z"),
        // Would grow the file past the cap.
        Edit {
            old_string: "line 99\n",
            new_string: &"w".repeat(2_000),
            replace_all: false,
        },
    ];
    let d = apply_diagnosed(text.as_bytes(), &edits, 1_000).unwrap_err();
    let CappedFailure::Edit(Failure::NotFound {
        edit_index: 1,
        snippet,
        ..
    }) = &d.failure
    else {
        panic!("{:?}", d.failure);
    };
    assert!(snippet.contains("line 20\nline 21"));
    assert_eq!(d.later.len(), 4);
    assert_eq!(d.later[0], Verdict::WouldApply { first_line: 10 });
    let Verdict::Fails(CappedFailure::Edit(Failure::NotFound {
        edit_index: 3,
        snippet,
        snippet_start_line,
        ..
    })) = &d.later[1]
    else {
        panic!("{:?}", d.later[1]);
    };
    // Located in the text with edit 2 applied: line 11 reads `line eleven`.
    let line24 = snippet
        .lines()
        .position(|l| l == "line 24")
        .expect("line 24 shown");
    assert_eq!(snippet_start_line + line24, 24);
    assert!(matches!(
        &d.later[2],
        Verdict::Fails(CappedFailure::Edit(Failure::Ambiguous {
            edit_index: 4,
            count: 11,
            ..
        }))
    ));
    assert!(matches!(
        d.later[3],
        Verdict::Fails(CappedFailure::TooLarge { edit_index: 5, .. })
    ));
    // The plain entry points still stop at the first failure.
    assert_eq!(
        apply_capped(text.as_bytes(), &edits, 1_000).unwrap_err(),
        d.failure
    );
    // A call that succeeds succeeds diagnosed too.
    let fine = [edit("line 10\n", "line ten\n")];
    assert_eq!(
        apply_diagnosed(text.as_bytes(), &fine, 1_000).unwrap(),
        apply_capped(text.as_bytes(), &fine, 1_000).unwrap()
    );
}

#[test]
fn a_result_over_the_cap_stops_the_diagnosis() {
    let edits = [
        Edit {
            old_string: "a",
            new_string: &"b".repeat(100),
            replace_all: false,
        },
        edit("missing", "x"),
    ];
    let d = apply_diagnosed(b"a\n", &edits, 50).unwrap_err();
    assert!(matches!(
        d.failure,
        CappedFailure::TooLarge { edit_index: 0, .. }
    ));
    assert!(d.later.is_empty());
}

#[test]
fn a_homoglyph_places_the_excerpt_even_when_the_edit_is_stale_too() {
    // Line 723 spells `count_total` with a Cyrillic `о`; the model's line
    // is also stale (6, not 5), so no look-alike match, but the placement
    // scores the folded text and finds the line.
    let mut text = numbered_lines(1_000);
    text = text.replace("line 723\n", "let c\u{43e}unt_total = 5;\n");
    let old = "let count_total = 6;";
    let err = apply(text.as_bytes(), &[edit(old, "x")]).unwrap_err();
    let Failure::NotFound {
        snippet,
        snippet_start_line,
        lookalike,
        ..
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!(lookalike, None);
    let at = snippet
        .lines()
        .position(|l| l.starts_with("let c"))
        .unwrap_or_else(|| panic!("{snippet}"));
    assert_eq!(snippet_start_line + at, 723);
    // With the right value, it is a look-alike match at that line.
    let err = apply(text.as_bytes(), &[edit("let count_total = 5;", "x")]).unwrap_err();
    let Failure::NotFound {
        lookalike: Some(l),
        snippet_start_line,
        ..
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!((l.line, snippet_start_line), (723, 723 - 7));
}
