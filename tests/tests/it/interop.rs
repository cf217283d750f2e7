//! Interop with a client we did not write: the official MCP TypeScript SDK
//! (`@modelcontextprotocol/sdk`, pinned by `tests/interop/package-lock.json`)
//! drives the real binary, validating every structured result against the
//! advertised output schemas. Installs its npm dependencies with `npm ci`
//! when they are missing.

use std::process::Command;

use splice_tests::harness::{skip_or_fail, splice_bin, workspace_root};

fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn typescript_sdk_client_drives_splice() {
    if !have("node") || !have("npm") {
        skip_or_fail("node and npm (the official TypeScript SDK client)");
        return;
    }
    let dir = workspace_root().join("tests/interop");
    let installed = dir
        .join("node_modules/@modelcontextprotocol/sdk/package.json")
        .exists();
    if !installed {
        let st = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("run npm ci");
        assert!(st.success(), "npm ci failed in {}", dir.display());
    }
    let out = Command::new("node")
        .args(["--test", "--test-reporter=spec", "interop.test.mjs"])
        .current_dir(&dir)
        .env("SPLICE_BIN", splice_bin())
        .output()
        .expect("run node --test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "TypeScript SDK interop failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("pass 13"),
        "expected 13 passing interop tests:\n{stdout}"
    );
}
