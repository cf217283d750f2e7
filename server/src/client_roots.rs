//! MCP client roots: how a client's `roots/list` narrows the configured roots.
//!
//! The server's `--root` directories are the access-control boundary. A client
//! that offers roots (the `roots` capability) says which directories the user
//! is working in; splice then edits only where both agree. Client roots may
//! narrow that set, never widen it: a client root outside every `--root` adds
//! nothing, a client root inside one becomes an allowed root, a `--root` inside
//! a client root stays. The MCP spec (2026-07-28, SEP-2577) deprecates roots as
//! "informational guidance rather than an access-control mechanism", which is
//! exactly why they can only take access away here.
//!
//! One rule in every protocol version: **roots the client states narrow;
//! a client that states none leaves `--root` alone.** So:
//!
//! - no `roots` capability, an error answer to `roots/list`, or (handshake
//!   era) no answer in time: `--root` alone ([`RootsSource::Server`]);
//! - a list with some roots inside a `--root`: the overlap
//!   ([`RootsSource::Client`]);
//! - an empty list: nothing is editable ([`RootsSource::ClientEmpty`]); the
//!   client said it works in no directory, and taking that as "anywhere in
//!   `--root`" would widen what it stated;
//! - only roots outside every `--root` (or none a local directory): nothing
//!   is editable ([`RootsSource::ClientDisjoint`]).
//!
//! The source travels in `PATH_OUTSIDE_ROOTS` as `context.roots_source`, so
//! a model told "outside the roots" also learns whose roots refused it (the
//! client's or the server's) without learning any path outside them.
//!
//! `--client-roots ignore` turns narrowing off (for clients that announce a
//! root unrelated to the project, e.g. their own install directory, or none).
//!
//! This module is pure: URIs in, paths out. [`crate::mcp`] asks the client
//! (by `roots/list` in the handshake era, by an MRTR input request in
//! 2026-07-28) and swaps the configuration.

use std::path::{Path, PathBuf};

pub use crate::taxonomy::RootsSource;

/// What to do with the roots a client offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "mcp", derive(clap::ValueEnum))]
pub enum ClientRootsPolicy {
    /// Edit only inside both a `--root` and a client root.
    #[default]
    Narrow,
    /// Ignore client roots; only `--root` counts.
    Ignore,
}

/// The local path of a `file://` root URI (percent-decoded), or `None` for
/// any other scheme, a remote host, or a relative path.
pub fn path_of_uri(uri: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("FILE://"))?;
    // `file:///p` (empty host) or `file://localhost/p`.
    let path = if rest.starts_with('/') {
        rest
    } else {
        rest.strip_prefix("localhost")?
    };
    if !path.starts_with('/') {
        return None;
    }
    // A query or fragment is not part of the path.
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    if bytes.contains(&0) {
        return None;
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The allowed roots when the client offers `client` (canonical paths) and
/// the server was configured with `server` (canonical paths). Empty when
/// they share nothing: then no path is editable.
pub fn narrow(server: &[PathBuf], client: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut add = |p: &Path| {
        if !out.iter().any(|o| o == p) {
            out.push(p.to_path_buf());
        }
    };
    for c in client {
        if server.iter().any(|s| c.starts_with(s)) {
            add(c);
        }
    }
    for s in server {
        if client.iter().any(|c| s.starts_with(c)) {
            add(s);
        }
    }
    // Drop roots that another allowed root already contains.
    let all = out.clone();
    out.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
    out
}

/// The roots a call runs with, and the rule that chose them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    /// Canonical allowed roots (empty: no path is editable).
    pub roots: Vec<PathBuf>,
    /// Which rule set them; reported as `context.roots_source` of
    /// `PATH_OUTSIDE_ROOTS`.
    pub source: RootsSource,
}

/// Applies the rule of this module to a `roots/list` answer: the client's
/// root URIs `uris` narrow the canonical `server` roots. Also returns the
/// URIs that are not local directories (they allow nothing), for the log.
pub fn from_client_list<'a>(
    server: &[PathBuf],
    uris: impl IntoIterator<Item = &'a str>,
) -> (Effective, Vec<String>) {
    let uris: Vec<&str> = uris.into_iter().collect();
    if uris.is_empty() {
        let effective = Effective {
            roots: Vec::new(),
            source: RootsSource::ClientEmpty,
        };
        return (effective, Vec::new());
    }
    let (client, ignored) = canonical_client_roots(uris);
    let roots = narrow(server, &client);
    let source = if roots.is_empty() {
        RootsSource::ClientDisjoint
    } else {
        RootsSource::Client
    };
    (Effective { roots, source }, ignored)
}

/// Canonical local paths of the client's root URIs. URIs that are not local
/// `file://` paths, or do not exist, are skipped (they cannot allow anything)
/// and named in the returned list of ignored URIs.
pub fn canonical_client_roots<'a>(
    uris: impl IntoIterator<Item = &'a str>,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut roots = Vec::new();
    let mut ignored = Vec::new();
    for uri in uris {
        match path_of_uri(uri).and_then(|p| p.canonicalize().ok()) {
            Some(p) if p.is_dir() => roots.push(p),
            _ => ignored.push(uri.to_string()),
        }
    }
    (roots, ignored)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn file_uris_become_paths_and_others_are_refused() {
        assert_eq!(path_of_uri("file:///home/u/proj"), Some(p("/home/u/proj")));
        assert_eq!(
            path_of_uri("file://localhost/home/u/my%20proj"),
            Some(p("/home/u/my proj"))
        );
        assert_eq!(path_of_uri("file:///a/b?x=1#f"), Some(p("/a/b")));
        assert_eq!(path_of_uri("file://server/share"), None);
        assert_eq!(path_of_uri("https://example.com/x"), None);
        assert_eq!(path_of_uri("file://relative"), None);
        assert_eq!(path_of_uri("file:///a%00b"), None);
    }

    #[test]
    fn client_roots_narrow_and_never_widen() {
        let server = [p("/w/proj"), p("/w/other")];
        // Inside a server root: becomes the allowed root.
        assert_eq!(narrow(&server, &[p("/w/proj/sub")]), [p("/w/proj/sub")]);
        // Above a server root: the server root stays, nothing more.
        assert_eq!(narrow(&server, &[p("/w")]), [p("/w/proj"), p("/w/other")]);
        // Outside every server root: nothing is allowed.
        assert_eq!(narrow(&server, &[p("/etc")]), Vec::<PathBuf>::new());
        // Several, overlapping: the widest allowed ones remain.
        assert_eq!(
            narrow(&server, &[p("/w/proj/a"), p("/w/proj"), p("/tmp")]),
            [p("/w/proj")]
        );
        // A sibling with a common prefix is not inside.
        assert_eq!(
            narrow(&[p("/w/proj")], &[p("/w/project")]),
            Vec::<PathBuf>::new()
        );
    }

    #[test]
    fn each_answer_names_its_rule() {
        let dir = tempfile::tempdir().unwrap();
        let server = [dir.path().canonicalize().unwrap()];
        let sub = server[0].join("sub");
        std::fs::create_dir(&sub).unwrap();
        let uri = |p: &Path| format!("file://{}", p.display());

        let (e, _) = from_client_list(&server, []);
        assert_eq!((e.roots.len(), e.source), (0, RootsSource::ClientEmpty));
        let (e, _) = from_client_list(&server, [uri(&sub).as_str()]);
        assert_eq!(
            (e.roots, e.source),
            (vec![sub.clone()], RootsSource::Client)
        );
        let (e, ignored) = from_client_list(&server, ["file:///", "file:///no/such/dir"]);
        assert_eq!(e.roots, server);
        assert_eq!(e.source, RootsSource::Client);
        assert_eq!(ignored, ["file:///no/such/dir"]);
        let other = tempfile::tempdir().unwrap();
        let (e, _) = from_client_list(&server, [uri(other.path()).as_str(), "https://x/"]);
        assert_eq!((e.roots.len(), e.source), (0, RootsSource::ClientDisjoint));
    }

    #[test]
    fn missing_or_remote_client_roots_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let canon = dir.path().canonicalize().unwrap();
        let uri = format!("file://{}", dir.path().display());
        let (roots, ignored) =
            canonical_client_roots([uri.as_str(), "file:///no/such/dir", "http://x/"]);
        assert_eq!(roots, [canon]);
        assert_eq!(ignored, ["file:///no/such/dir", "http://x/"]);
    }
}
