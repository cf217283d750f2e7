//! Loading a spec: text or file in, a checked [`Spec`] or every problem out.
//!
//! Three stages, each in its own module, none calling back into an earlier
//! one: [`crate::yaml`] parses the text into a spanned tree;
//! [`crate::lower`] reads that tree into a [`crate::draft::Draft`], checking
//! the *shape* of each entry; [`crate::validate`] checks the draft as a
//! whole. Only if nothing at all was reported does the draft become a
//! [`Spec`] whose invariants the emitters rely on.

use std::path::Path;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::span::Loc;
use crate::spec::Spec;
use crate::yaml::{self, NodeKind};

/// Loads and checks a spec from its text. `file_name` is only used in
/// diagnostics.
pub fn load_str(source: &str, file_name: &str) -> Result<Spec, Diagnostics> {
    let parsed = yaml::parse(source);
    if !parsed.complete {
        let mut syntax = parsed.diagnostics;
        let misindented = explain_indentation(source, &mut syntax);
        let more = problems_beside_a_syntax_error(source, &mut syntax, misindented);
        // The syntax error is the root cause: it comes first, whatever
        // its position; the problems found beside it follow in order.
        let mut diags = Diagnostics::new(file_name, source, more);
        diags.items.splice(0..0, syntax);
        return Err(diags);
    }
    load_tree(source, file_name, parsed.root.as_ref(), parsed.diagnostics)
}

/// The checks after a complete parse of `source` ([`yaml::Parsed::complete`]):
/// what [`load_str`] does once the text parsed, on a tree the caller already
/// has (the language server parses once for its index and the compiler).
/// `diags` holds the parser's warnings.
pub fn load_tree(
    source: &str,
    file_name: &str,
    root: Option<&yaml::Node>,
    mut diags: Vec<Diagnostic>,
) -> Result<Spec, Diagnostics> {
    let fail = |items| Err(Diagnostics::new(file_name, source, items));
    let Some(root) = root else {
        diags.push(
            Diagnostic::new(Loc::default(), "the spec is empty")
                .with_help("start from the annotated example in docs/spec-format.md"),
        );
        return fail(diags);
    };
    let (draft, diags) = lower_and_check(root, source, diags);
    if !diags.is_empty() {
        return fail(diags);
    }
    match draft.and_then(|d| d.finish()) {
        Some(spec) => Ok(spec),
        None => fail(vec![
            Diagnostic::new(
                root.loc,
                "internal error: the spec passed every check but could not be assembled",
            )
            .with_help("this is a bug in splice-codegen; please report it with the spec"),
        ]),
    }
}

/// The two checking stages over a parsed tree: the shape of each entry
/// ([`crate::lower`]), then the spec as a whole ([`crate::validate`]),
/// every problem added to `diags`.
fn lower_and_check(
    root: &yaml::Node,
    source: &str,
    diags: Vec<Diagnostic>,
) -> (Option<crate::draft::Draft>, Vec<Diagnostic>) {
    let (draft, mut diags) = crate::lower::lower(root, diags);
    if let Some(draft) = &draft {
        crate::validate::check(draft, source, &mut diags);
    }
    (draft, diags)
}

/// A line whose indentation is the likely cause of a YAML syntax error: it
/// is indented differently from the entry lines just before and after it,
/// which agree with each other (a key moved out of its mapping, or into the
/// value above it). Returns the 0-based line index, its indentation and
/// the indentation of the lines around it.
fn misindented_line(source: &str, error_line: usize) -> Option<(usize, usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let is_entry = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    };
    // The parser stops on the bad line or on the one after it.
    let error = error_line.checked_sub(1)?;
    [error, error.checked_sub(1)?]
        .into_iter()
        .filter(|&c| c < lines.len() && is_entry(lines[c]))
        .find_map(|c| {
            let prev = (0..c).rev().find(|&i| is_entry(lines[i]))?;
            let next = (c + 1..lines.len()).find(|&i| is_entry(lines[i]))?;
            let (here, around) = (indent(lines[c]), indent(lines[prev]));
            // A key that opens a block (`context:`) is followed by deeper
            // lines: no mistake.
            let opens_block =
                lines[prev].trim_end().ends_with(':') || lines[c].trim_end().ends_with(['|', '>']);
            (here != around && indent(lines[next]) == around && !opens_block)
                .then_some((c, here, around))
        })
}

/// Rewrites a YAML syntax error that a wrongly indented line caused into
/// plain words about the indentation, pointing at that line (the parser's
/// own message and position become a note). Returns the line's index.
fn explain_indentation(source: &str, syntax: &mut [Diagnostic]) -> Option<usize> {
    let first = syntax.first_mut()?;
    let reason = first.message.strip_prefix("invalid YAML: ")?;
    // A tab, or a bracket left open, is its own explanation.
    if reason.contains("tab") || !first.related.is_empty() {
        return None;
    }
    let (index, here, around) = misindented_line(source, first.loc.line)?;
    let start: usize = source.split_inclusive('\n').take(index).map(str::len).sum();
    let text = source[start..].lines().next().unwrap_or_default();
    let key_len = text
        .trim()
        .split(':')
        .next()
        .unwrap_or_default()
        .trim_end()
        .len();
    let loc = yaml::loc_of_range(source, start + here, start + here + key_len.max(1));
    let spaces = |n: usize| {
        if n == 1 {
            "1 space".to_string()
        } else {
            format!("{n} spaces")
        }
    };
    let parser_stop = first.loc;
    let mut d = Diagnostic::new(
        loc,
        format!(
            "wrong indentation: line {} is indented by {}, the lines around it by {}",
            index + 1,
            spaces(here),
            spaces(around)
        ),
    )
    .with_label(format!("indented by {}", spaces(here)))
    .with_help(format!(
        "indent it by {} like the lines around it: the keys of one mapping line up, a deeper \
         line continues the value above it and a shallower one ends the mapping",
        spaces(around)
    ));
    if parser_stop.line != loc.line || parser_stop.col != loc.col {
        d = d.with_related(
            parser_stop,
            format!("so the YAML parser stopped here: {reason}"),
        );
    }
    *first = d;
    Some(index)
}

/// The other problems of a spec whose YAML does not parse, so that one
/// syntax error does not hide them: the entry that holds the error (the
/// second-level key around it: a code, a field, a category, ...) is blanked
/// out, byte for byte so every other location stays valid, and the rest is
/// checked. Problems inside the blanked entry or naming its key are left
/// out (they would be consequences of the blanking), and the syntax error
/// says which entry was skipped. Nothing is added when the error is not
/// inside such an entry or when the rest does not parse either.
fn problems_beside_a_syntax_error(
    source: &str,
    syntax: &mut [Diagnostic],
    misindented: Option<usize>,
) -> Vec<Diagnostic> {
    let Some(first) = syntax.first_mut() else {
        return Vec::new();
    };
    // Where the error really is: an unclosed bracket is reported where
    // the parser gave up, and points back at where it was opened.
    let line = std::iter::once(first.loc.line)
        .chain(first.related.iter().map(|(loc, _)| loc.line))
        .filter(|&l| l > 0)
        .min()
        .unwrap_or(0);
    let lines: Vec<(usize, &str)> = source
        .split_inclusive('\n')
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
        .collect();
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    // A misindented line belongs to the entry around it, whatever its
    // indentation says.
    let is_entry = |i: usize, l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && Some(i) != misindented
    };
    // The second-level key at or before the error line, and where its
    // entry ends: the next line indented two spaces or less.
    let Some(start) = (0..line.min(lines.len()))
        .rev()
        .find(|&i| is_entry(i, lines[i].1) && indent(lines[i].1) <= 2)
        .filter(|&i| indent(lines[i].1) == 2)
    else {
        return Vec::new();
    };
    let end = (start + 1..lines.len())
        .find(|&i| is_entry(i, lines[i].1) && indent(lines[i].1) <= 2)
        .unwrap_or(lines.len());
    let key = lines[start]
        .1
        .trim()
        .split(':')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let (from, to) = (
        lines[start].0,
        lines.get(end).map_or(source.len(), |&(at, _)| at),
    );
    let blanked: String = source[..from]
        .chars()
        .chain(source[from..to].chars().flat_map(|c| match c {
            '\n' => vec!['\n'],
            c => vec![' '; c.len_utf8()],
        }))
        .chain(source[to..].chars())
        .collect();
    let parsed = yaml::parse(&blanked);
    let (true, Some(root)) = (parsed.complete, parsed.root) else {
        return Vec::new();
    };
    let (_, mut diags) = lower_and_check(&root, &blanked, parsed.diagnostics);
    let named = format!("`{key}`");
    diags.retain(|d| !(from..to).contains(&d.loc.start) && !d.message.contains(&named));
    let last = (start..end)
        .rev()
        .find(|&i| is_entry(i, lines[i].1))
        .unwrap_or(start);
    let skipped = format!(
        "the entry `{key}` (lines {}-{}) was skipped while the rest of the spec was checked",
        start + 1,
        last + 1
    );
    first.help = Some(match first.help.take() {
        Some(help) if help.starts_with("fix the YAML syntax first") => skipped,
        Some(help) => format!("{help}; {skipped}"),
        None => skipped,
    });
    diags
}

/// The context vocabulary of format 1, when fields were a fixed table in the
/// compiler (taxonomy 1.0.0 to 1.1.0). Frozen.
const FORMAT1_DECLARATIONS: &str = include_str!("format1_declarations.yaml");

/// Loads a *released* spec for comparison (`diff`'s old side). A spec written
/// before fields were declared (no `types:` and no `fields:` key) that does
/// not load as it is (its codes name fields it does not declare) is read with
/// the frozen format-1 vocabulary appended, which is exactly what its release
/// meant; any other spec loads as [`load_str`] does.
pub fn load_baseline_str(source: &str, file_name: &str) -> Result<Spec, Diagnostics> {
    let declares = yaml::parse(source)
        .root
        .is_some_and(|root| match &root.kind {
            NodeKind::Map(entries) => entries
                .iter()
                .any(|(k, _)| matches!(k.as_scalar(), Some("types" | "fields"))),
            _ => true,
        });
    if declares {
        return load_str(source, file_name);
    }
    // A spec that names no field it does not declare means what it says:
    // read so, `diff X X` compares a spec with itself.
    if let Ok(spec) = load_str(source, file_name) {
        return Ok(spec);
    }
    let mut text = source.trim_end().to_owned();
    text.push('\n');
    text.push_str(FORMAT1_DECLARATIONS);
    load_str(&text, file_name)
}

/// [`load_baseline_str`] on a file.
pub fn load_baseline_path(path: &Path) -> Result<Spec, Diagnostics> {
    match read_spec(path).map(String::from_utf8) {
        Ok(Ok(source)) => load_baseline_str(&source, &path.display().to_string()),
        _ => load_path(path),
    }
}

/// The largest spec file read, in bytes. splice's own spec is 100 KB and
/// a 40,000-code one about 25 MB; a file larger than this is refused
/// before it is read, and a file that grows while it is read is cut here,
/// so neither a huge file nor an endless one (`/dev/zero`) fills memory.
pub const MAX_SPEC_BYTES: u64 = 64 * 1024 * 1024;

/// Reads and loads a spec file. A file that cannot be read, is not a
/// regular file (a directory, a FIFO, a device), is larger than
/// [`MAX_SPEC_BYTES`] or is not UTF-8 is reported as a diagnostic like any
/// other problem.
pub fn load_path(path: &Path) -> Result<Spec, Diagnostics> {
    let file_name = path.display().to_string();
    let bytes = match read_spec(path) {
        Ok(b) => b,
        Err(message) => {
            return Err(Diagnostics::new(
                file_name,
                "",
                vec![Diagnostic::new(Loc::default(), message)],
            ));
        }
    };
    match String::from_utf8(bytes) {
        Ok(source) => load_str(&source, &file_name),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let source = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy text is identical up to `at`, so the offset holds;
            // the replacement character there is 3 bytes long.
            let loc = yaml::loc_of_range(&source, at, at + '\u{FFFD}'.len_utf8());
            Err(Diagnostics::new(
                file_name,
                source,
                vec![
                    Diagnostic::new(loc, "the spec is not valid UTF-8")
                        .with_label("invalid byte sequence")
                        .with_help("save the file as UTF-8"),
                ],
            ))
        }
    }
}

/// The bytes of the spec file at `path`, or why it cannot be read.
///
/// The file type is checked before the file is opened (opening a FIFO
/// waits for a writer) and again on the open file (the path may have been
/// replaced in between; on Unix it is opened non-blocking, so even a FIFO
/// swapped in cannot block); at most [`MAX_SPEC_BYTES`] + 1 bytes are read.
pub fn read_spec(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let name = path.display();
    let not_regular = |meta: &std::fs::Metadata| -> Option<String> {
        let ty = meta.file_type();
        if ty.is_file() {
            return None;
        }
        Some(format!(
            "`{name}` is {}, not a regular file",
            describe_file_type(ty)
        ))
    };
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if let Some(message) = not_regular(&meta) {
        return Err(message);
    }
    let too_large =
        |len: u64| format!("`{name}` is larger than {MAX_SPEC_BYTES} bytes ({len} bytes)");
    if meta.len() > MAX_SPEC_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read `{name}`: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if let Some(message) = not_regular(&meta) {
        return Err(message);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or_default());
    file.take(MAX_SPEC_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if bytes.len() as u64 > MAX_SPEC_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// "a directory", "a FIFO", ... for a file that is not a regular file.
fn describe_file_type(ty: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    if ty.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(path: &Path) -> String {
        let d = load_path(path).expect_err("must be refused");
        assert_eq!(d.items.len(), 1, "{d:?}");
        d.items[0].message.clone()
    }

    #[cfg(unix)]
    #[test]
    fn a_spec_that_is_not_a_regular_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(
            refusal(dir.path()).ends_with("is a directory, not a regular file"),
            "{}",
            refusal(dir.path())
        );
        // Read, it would never end.
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            assert!(refusal(zero).ends_with("is a character device, not a regular file"));
        }
        // Opened, it would wait for a writer forever.
        let fifo = dir.path().join("errors.yaml");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        assert!(refusal(&fifo).ends_with("is a FIFO, not a regular file"));
        assert!(load_baseline_path(&fifo).is_err());
    }

    #[test]
    fn a_spec_larger_than_the_cap_is_refused_unread() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("errors.yaml");
        let file = std::fs::File::create(&path).expect("create");
        // Sparse: no disk space, and never read.
        file.set_len(MAX_SPEC_BYTES + 1).expect("set_len");
        assert!(refusal(&path).contains("is larger than"));
    }
}
