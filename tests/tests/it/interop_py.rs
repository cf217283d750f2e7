//! Interop with the official MCP Python SDK client (`mcp`, pinned with
//! hashes by `tests/interop-py/requirements.txt`): `test_interop.py` drives
//! the real binary in both protocol eras (initialize handshake and
//! 2026-07-28), through success, dry run, each error class, parallel calls,
//! cancellation, client roots and the 100-file answer bound; and
//! datamodel-code-generator makes one model per error code from each tool's
//! `outputSchema`, none degraded to `Any`. `.ci/run`
//! installs the venv; this test installs it too when it is missing.
//!
//! No case may be skipped: a skip (e.g. a missing `SPLICE_BIN`) fails this
//! test.

use std::path::Path;
use std::process::Command;

use splice_tests::harness::{skip_or_fail, splice_bin, workspace_root};

/// Creates `dir/.venv` with the pinned requirements (hashes required).
fn install(dir: &Path) {
    let st = Command::new("python3")
        .args(["-m", "venv", ".venv"])
        .current_dir(dir)
        .status()
        .expect("python3 -m venv");
    assert!(st.success(), "python3 -m venv failed in {}", dir.display());
    let st = Command::new(".venv/bin/pip")
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            // Byte-compile on import, only what the test imports: halves the install.
            "--no-compile",
            "--require-hashes",
            "-r",
            "requirements.txt",
        ])
        .current_dir(dir)
        .status()
        .expect("pip install");
    assert!(st.success(), "pip install failed in {}", dir.display());
}

#[test]
fn python_sdk_client_drives_splice() {
    let have_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_python {
        skip_or_fail("python3 (the official Python SDK client)");
        return;
    }
    let dir = workspace_root().join("tests/interop-py");
    let python = dir.join(".venv/bin/python");
    let installed = Command::new(&python)
        .args(["-c", "import mcp, datamodel_code_generator"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        install(&dir);
    }
    let out = Command::new(&python)
        .args(["-m", "unittest", "-v", "test_interop.py"])
        .current_dir(&dir)
        .env("SPLICE_BIN", splice_bin())
        .output()
        .expect("run python -m unittest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "Python SDK interop failed:\n{stdout}\n{stderr}"
    );
    // unittest reports on stderr: "Ran N tests" and "OK (skipped=K)".
    let ran = stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("Ran ")?
                .split(' ')
                .next()?
                .parse::<u32>()
                .ok()
        })
        .unwrap_or(0);
    assert!(
        ran >= 15,
        "expected at least 15 Python interop cases:\n{stderr}"
    );
    let skipped: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(" ... skipped"))
        .collect();
    assert!(skipped.is_empty(), "skipped cases: {skipped:#?}");
}
