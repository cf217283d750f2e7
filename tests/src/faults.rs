//! Real file-system faults for tests: a tiny tmpfs that fills up, a remount
//! read-only, an immutable file, a command run as an unprivileged user.
//!
//! These are the faults users hit (ENOSPC, EROFS, EPERM, EACCES), produced by
//! the kernel rather than mocked, so a test sees the exact errno, at the exact
//! syscall, that a real failure would give. They need root (and `mount`,
//! `chattr`, `setpriv`). A fixture that cannot be set up returns
//! [`Unavailable`]; [`require`] turns that into a loud failure when `CI=true`
//! and into a skip, with the reason on stderr, otherwise.
//!
//! This file is the single implementation: `splice-tests` exports it, and the
//! server's own tests include it with
//! `#[path = "../../tests/src/faults.rs"] mod faults;` (the server cannot
//! dev-depend on this crate, which depends on it). So: std only.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The uid and gid of `nobody`, which [`as_nobody`] runs commands as.
pub const NOBODY: u32 = 65534;

/// Why a fault fixture could not be set up (missing privilege or tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The fixture, or `None` after printing why the test is skipped.
///
/// # Panics
///
/// When the fixture is unavailable and the environment says `CI=true`: on CI a
/// fault test must run, not silently pass.
pub fn require<T>(fixture: Result<T, Unavailable>) -> Option<T> {
    match fixture {
        Ok(t) => Some(t),
        Err(Unavailable(reason)) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("fault fixture unavailable on CI: {reason}");
            }
            eprintln!("skipping fault test: {reason}");
            None
        }
    }
}

/// Whether this process runs as root (effective uid 0), read from /proc.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

fn need_root(what: &str) -> Result<(), Unavailable> {
    if is_root() {
        Ok(())
    } else {
        Err(Unavailable(format!("{what} needs root")))
    }
}

/// Runs a command, mapping failure to [`Unavailable`] with its stderr.
fn run(program: &str, args: &[&std::ffi::OsStr]) -> Result<(), Unavailable> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| Unavailable(format!("cannot run {program}: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(Unavailable(format!(
            "{program} {} failed: {}",
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// A fresh, empty directory under the system temp dir, removed on drop.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    pub fn new(prefix: &str) -> std::io::Result<ScratchDir> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!(
            "{prefix}-{}-{nanos:x}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&path)?;
        Ok(ScratchDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A tmpfs of a fixed size, mounted on a fresh directory; unmounted on drop.
///
/// Writes past the size fail with ENOSPC; [`Tmpfs::remount_ro`] makes every
/// write fail with EROFS.
#[derive(Debug)]
pub struct Tmpfs {
    dir: ScratchDir,
}

impl Tmpfs {
    pub fn mount(size_bytes: u64) -> Result<Tmpfs, Unavailable> {
        need_root("mounting a tmpfs")?;
        let dir =
            ScratchDir::new("splice-tmpfs").map_err(|e| Unavailable(format!("mkdir: {e}")))?;
        let options = format!("size={size_bytes},mode=0755");
        run(
            "mount",
            &[
                "-t".as_ref(),
                "tmpfs".as_ref(),
                "-o".as_ref(),
                options.as_ref(),
                "tmpfs".as_ref(),
                dir.path().as_os_str(),
            ],
        )?;
        Ok(Tmpfs { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Remounts read-only. Fails (EBUSY) while a file on it is open for writing.
    pub fn remount_ro(&self) -> Result<(), Unavailable> {
        remount(self.path(), true)
    }

    pub fn remount_rw(&self) -> Result<(), Unavailable> {
        remount(self.path(), false)
    }
}

/// Remounts the file system mounted at `mount_point` read-only or read-write.
/// A free function so a hook running inside the code under test can call it.
pub fn remount(mount_point: &Path, read_only: bool) -> Result<(), Unavailable> {
    let options = if read_only {
        "remount,ro"
    } else {
        "remount,rw"
    };
    run(
        "mount",
        &["-o".as_ref(), options.as_ref(), mount_point.as_os_str()],
    )
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let path = self.path().as_os_str();
        if run("umount", &[path]).is_err() {
            let _ = run("umount", &["-l".as_ref(), path]);
        }
    }
}

/// A file made immutable (`chattr +i`): it cannot be written, renamed over,
/// hard-linked or removed, even by root (EPERM). Cleared on drop.
#[derive(Debug)]
pub struct Immutable {
    path: PathBuf,
}

impl Immutable {
    pub fn set(path: &Path) -> Result<Immutable, Unavailable> {
        need_root("chattr +i")?;
        run("chattr", &["+i".as_ref(), path.as_os_str()])?;
        Ok(Immutable {
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = run("chattr", &["-i".as_ref(), self.path.as_os_str()]);
    }
}

/// `cmd` wrapped to run as `nobody` (uid and gid 65534, no supplementary
/// groups) with `setpriv`: root ignores file modes, so EACCES needs this.
/// Program, arguments, environment changes and working directory carry over.
pub fn as_nobody(cmd: &Command) -> Result<Command, Unavailable> {
    need_root("running as nobody")?;
    if Command::new("setpriv").arg("--version").output().is_err() {
        return Err(Unavailable("setpriv (util-linux) is not installed".into()));
    }
    let mut wrapped = Command::new("setpriv");
    wrapped.args([
        OsString::from(format!("--reuid={NOBODY}")),
        OsString::from(format!("--regid={NOBODY}")),
        OsString::from("--clear-groups"),
        OsString::from("--"),
        cmd.get_program().to_owned(),
    ]);
    wrapped.args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    Ok(wrapped)
}

/// Changes the owner of `path` to `nobody` (so a nobody process can write it).
pub fn give_to_nobody(path: &Path) -> Result<(), Unavailable> {
    need_root("chown to nobody")?;
    std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY))
        .map_err(|e| Unavailable(format!("chown {}: {e}", path.display())))
}
