#!/usr/bin/env python3
"""How `taxonomy!` scales: build time, peak memory and expansion size of a
crate whose only item is the macro, on two synthetic 1,000-code specs.

    /usr/bin/python3 bench/macro-scale/run.py              # both specs, 1,000 codes
    /usr/bin/python3 bench/macro-scale/run.py --codes 50   # quick look
    /usr/bin/python3 bench/macro-scale/run.py --baseline DIR  # another checkout first, side by side
    /usr/bin/python3 bench/macro-scale/run.py --codes 5000 --only 8-fields --check --profile
        # `cargo check` instead of `cargo build`; with the expansion pasted in
        # (the compiler's share) and `splice-codegen rust` (the macro's work)

The specs and crates stay under `target/macro-scale/<side>/<spec>/`
(`errors.yaml` there is the spec; `splice-codegen rust` on it prints the
expansion).

The two specs (written by `spec()` below; both declare the same 100 context
fields of five types, half at the top level and half in `context`):

- `all-fields`: every code carries all 100 fields: 3 required (a different
  window of the field list per code) and the other 97 optional.
- `8-fields`: every code carries 8 fields: 2 required and 6 optional, drawn
  per code by a seeded shuffle, so nearly every code has a set of its own.

Each code also has a string and an integer message parameter and three
hints, like `macros/benches/expand.rs`. For each spec the harness writes a
fresh crate under `target/macro-scale/` that depends on `splice-macros` by
path (with the workspace's `Cargo.lock`, so the same dependency versions)
and contains only `taxonomy!("../errors.yaml")` and one constructor call,
builds it once so its dependencies are compiled, then touches its source and
times `cargo build` (`--runs` times, default 3, reporting the fastest
wall time, the least CPU time (user + system, steadier than wall time on a
shared machine) and the smallest peak RSS; debug, as a user's `cargo build`; splice-codegen and
splice-macros at `opt-level = 3` as in the workspace) under
`/usr/bin/time -v`: wall time and the peak RSS of the largest process (rustc
compiling the crate). The expansion size is the byte count of
`splice-codegen rust SPEC` (the expansion, pretty-printed). The crates have
their own CARGO_TARGET_DIR (`target/macro-scale/target`), so nothing of the
workspace build is touched; the first run compiles serde, schemars and
splice-codegen there once (about a minute).

This is a benchmark, not a test: it is not part of `cargo test` or CI.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIELD_COUNT = 100
# (type, needs the enum declared below)
TYPES = ["string", "integer", "boolean", "Level", "string[]"]
CATEGORIES = [("validation", 1000), ("domain", 2000), ("external", 4000), ("internal", 9000)]


def field_name(j):
    return f"detail_{chr(ord('a') + j // 26 % 26)}{chr(ord('a') + j % 26)}"


def spec(codes, kind):
    """A valid spec with `codes` codes; `kind` is `all-fields` or `8-fields`.
    Beyond 4,000 codes the category ranges are 100 times wider (100000,
    200000, ...), since 1,000 numbers per category no longer suffice."""
    scale = 1 if codes <= 1000 * len(CATEGORIES) else 100
    out = [
        "taxonomy:",
        f"  name: scale-{kind}",
        "  version: 1.0.0",
        "  base_uri: schema://scale",
        "categories:",
    ]
    for key, lo in CATEGORIES:
        out += [
            f"  {key}:",
            f"    range: [{lo * scale}, {lo * scale + 1000 * scale - 1}]",
            f"    description: The {key} category.",
            "    retryable: false",
            "    cause: input",
        ]
    out += [
        "types:",
        "  Level:",
        "    doc: How bad it is.",
        "    enum: [low, medium, high]",
        "fields:",
    ]
    names = [field_name(j) for j in range(FIELD_COUNT)]
    for j, name in enumerate(names):
        ty = TYPES[j % len(TYPES)]
        placement = "top_level" if j % 2 == 0 else "context"
        out.append(
            f'  {name}: {{ type: "{ty}", in: {placement}, doc: Synthetic detail number {j}. }}'
        )
    out.append("codes:")
    for i in range(codes):
        key, lo = CATEGORIES[i % len(CATEGORIES)]
        number = lo * scale + i // len(CATEGORIES)
        if kind == "all-fields":
            start = (3 * i) % FIELD_COUNT
            required = [names[(start + k) % FIELD_COUNT] for k in range(3)]
            optional = [n for n in names if n not in required]
        else:
            chosen = random.Random(i).sample(names, 8)
            required, optional = chosen[:2], chosen[2:]
        out += [
            f"  CODE_NUMBER_{i}:",
            f"    number: {number}",
            f"    category: {key}",
            "    since: 1.0.0",
            f"    title: synthetic failure number {i}",
            '    message: "operation {op_name} failed after {attempts} attempts"',
            "    params:",
            "      op_name: { type: string, description: The operation. }",
            "      attempts: { type: integer, description: How many attempts were made. }",
            "    recovery_hints:",
            '      - "Check the arguments of {op_name}"',
            "      - Re-read the file before retrying",
            "      - Split the work over several calls",
            "    context:",
            f"      required: [{', '.join(required)}]",
            f"      optional: [{', '.join(optional)}]",
            "    explanation: |",
            f"      Synthetic code {i} describes a failure of an operation.",
        ]
    return "\n".join(out) + "\n", names


def sample_call(spec_text):
    """`ErrorEnvelope::code_number_0(...)` with dummy arguments: the first
    code's required fields in declaration order, then its two params."""
    m = re.search(r"CODE_NUMBER_0:.*?required: \[([^\]]*)\]", spec_text, re.S)
    required = [r.strip() for r in m.group(1).split(",")]
    decl = {}
    for line in spec_text.splitlines():
        fm = re.match(r'  (detail_\w+): \{ type: "([^"]+)"', line)
        if fm:
            decl[fm.group(1)] = fm.group(2)
    order = [n for n in decl if n in required]
    dummy = {
        "string": '"x"',
        "integer": "1",
        "boolean": "true",
        "Level": "Level::High",
        "string[]": "::std::vec::Vec::new()",
    }
    args = [dummy[decl[n]] for n in order] + ['"op"', "3"]
    return f"ErrorEnvelope::code_number_0({', '.join(args)}).build()"


def write_crate(crate, name, checkout, spec_text):
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "errors.yaml").write_text(spec_text)
    (crate / "Cargo.toml").write_text(
        f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
splice-macros = {{ path = "{checkout / 'macros'}" }}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"

# Not part of the splice workspace.
[workspace]

# As in the splice workspace: the macro's code generation is optimised.
[profile.dev.package.splice-codegen]
opt-level = 3
[profile.dev.package.splice-macros]
opt-level = 3
"""
    )
    lock = crate / "Cargo.lock"
    if not lock.exists():
        lock.write_bytes((checkout / "Cargo.lock").read_bytes())
    (crate / "src" / "lib.rs").write_text(
        f"""//! Generated by bench/macro-scale/run.py.
#![allow(dead_code)]

splice_macros::taxonomy!("../errors.yaml");

pub fn sample() -> ErrorEnvelope {{
    {sample_call(spec_text)}
}}
"""
    )


def cargo_build(crate, target, timed, command="build"):
    """`cargo build` (or `command`, e.g. `check`) of the crate; with `timed`,
    of the crate alone and from scratch (its incremental cache removed, as in
    a first build or after the spec changed): (wall seconds, CPU seconds, peak
    RSS bytes)."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    cmd = ["cargo", command, "--offline", "--quiet"]
    if timed:
        name = re.search(r'name = "([^"]+)"', (crate / "Cargo.toml").read_text()).group(1)
        for d in (target / "debug" / "incremental").glob(name.replace("-", "_") + "-*"):
            shutil.rmtree(d)
        os.utime(crate / "src" / "lib.rs")
        cmd = ["/usr/bin/time", "-v"] + cmd
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=crate, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"cargo build of {crate} failed:\n{r.stderr[-6000:]}")
    if not timed:
        return None
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([0-9.]+)", r.stderr).group(1))
              for k in ("User", "System"))
    return wall, cpu, rss_kb * 1024


def codegen_binary(checkout, target):
    """`splice-codegen` of `checkout`, built into the harness's own target
    directory (the workspace's is not touched)."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    subprocess.run(
        ["cargo", "build", "--locked", "--quiet", "--manifest-path",
         str(checkout / "Cargo.toml"), "--bin", "splice-codegen"],
        env=env, check=True,
    )
    return target / "debug" / "splice-codegen"


def expansion_size(codegen, spec_path):
    r = subprocess.run([str(codegen), "rust", str(spec_path)], capture_output=True)
    if r.returncode != 0:
        sys.exit(f"splice-codegen rust {spec_path} failed:\n{r.stderr.decode()[-4000:]}")
    return len(r.stdout)


def timed(cmd, **kw):
    """Runs `cmd` under `/usr/bin/time -v`: (wall s, CPU s, peak RSS bytes,
    stdout bytes)."""
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, **kw)
    wall = time.monotonic() - t0
    err = r.stderr.decode(errors="replace")
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{err[-6000:]}")
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([0-9.]+)", err).group(1))
              for k in ("User", "System"))
    return wall, cpu, rss_kb * 1024, r.stdout


def profile(crate, target, codegen, command):
    """Where a build of `crate` goes: the compiler's own work on the
    expansion (the output of `splice-codegen rust`, pasted into a crate of
    its own with `include!`, built like the macro's crate) and the
    macro's work alone (`splice-codegen rust`: load, check, emit; it also
    pretty-prints, which the macro does not). Returns a dict of figures."""
    spec_path = crate / "errors.yaml"
    wall, cpu, rss, out = timed([str(codegen), "rust", str(spec_path)])
    pasted = crate.parent / (crate.name + "-expanded")
    (pasted / "src").mkdir(parents=True, exist_ok=True)
    (pasted / "expansion.rs").write_bytes(out)
    name = "macro-scale-expanded-" + crate.name.replace("-", "")
    toml = (crate / "Cargo.toml").read_text()
    toml = re.sub(r'name = "[^"]+"', f'name = "{name}"', toml, count=1)
    (pasted / "Cargo.toml").write_text(toml)
    lock = pasted / "Cargo.lock"
    if not lock.exists():
        lock.write_bytes((crate / "Cargo.lock").read_bytes())
    lib = (crate / "src" / "lib.rs").read_text().replace(
        'splice_macros::taxonomy!("../errors.yaml");', 'include!("../expansion.rs");')
    (pasted / "src" / "lib.rs").write_text(lib)
    cargo_build(pasted, target, False, command)
    p_wall, p_cpu, p_rss = cargo_build(pasted, target, True, command)
    return {"codegen_rust_s": round(wall, 2), "codegen_rust_cpu_s": round(cpu, 2),
            "codegen_rust_rss_bytes": rss,
            "expanded_s": round(p_wall, 2), "expanded_cpu_s": round(p_cpu, 2),
            "expanded_rss_bytes": p_rss}


def human(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--codes", type=int, default=1000)
    ap.add_argument("--only", choices=["all-fields", "8-fields"])
    ap.add_argument("--runs", type=int, default=3,
                    help="timed builds per spec; the fastest is reported (default 3)")
    ap.add_argument("--baseline", type=Path, metavar="DIR",
                    help="another checkout of splice (e.g. `git worktree add ../splice-main "
                         "main`): measure its taxonomy! too, side by side")
    ap.add_argument("--check", action="store_true",
                    help="time `cargo check` instead of `cargo build` (what an editor or "
                         "`cargo check` pays; no code generation)")
    ap.add_argument("--profile", action="store_true",
                    help="also build the expansion pasted in with include! (the compiler's share) "
                         "and time `splice-codegen rust` (the macro's own work)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = ap.parse_args()

    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout
    )
    work = Path(meta["target_directory"]) / "macro-scale"
    target = work / "target"
    sides = [("current", ROOT)]
    if args.baseline:
        sides.insert(0, ("baseline", args.baseline.resolve()))

    kinds = [args.only] if args.only else ["all-fields", "8-fields"]
    rows = []
    for side, checkout in sides:
        codegen = codegen_binary(checkout, work / f"codegen-{side}")
        for kind in kinds:
            text, _ = spec(args.codes, kind)
            crate = work / side / kind
            name = f"macro-scale-{side}-{kind.replace('-', '')}"
            write_crate(crate, name, checkout, text)
            size = expansion_size(codegen, crate / "errors.yaml")
            command = "check" if args.check else "build"
            cargo_build(crate, target, False, command)  # dependencies, and that it builds
            runs = [cargo_build(crate, target, True, command) for _ in range(max(1, args.runs))]
            wall = min(w for w, _, _ in runs)
            cpu = min(c for _, c, _ in runs)
            rss = min(r for _, _, r in runs)
            row = {"side": side, "spec": kind, "codes": args.codes,
                   "spec_bytes": len(text), "expansion_bytes": size,
                   "build_s": round(wall, 2), "cpu_s": round(cpu, 2),
                   "peak_rss_bytes": rss}
            print(f"{side} {kind}: {wall:.1f} s ({cpu:.1f} s CPU), {human(rss)} peak, expansion {human(size)}",
                  file=sys.stderr)
            if args.profile:
                row.update(profile(crate, target, codegen, command))
                print(f"  the expansion pasted in: {row['expanded_s']:.1f} s "
                      f"({row['expanded_cpu_s']:.1f} s CPU), {human(row['expanded_rss_bytes'])} peak; "
                      f"splice-codegen rust: {row['codegen_rust_cpu_s']:.1f} s CPU, "
                      f"{human(row['codegen_rust_rss_bytes'])} peak", file=sys.stderr)
            rows.append(row)

    load = os.getloadavg()[0]
    command = "check" if args.check else "build"
    print(f"\n{args.codes} codes; debug `cargo {command}` of the crate alone from scratch, "
          f"best of {args.runs}; load average {load:.1f}\n")
    print("| splice-macros | spec | YAML | expansion | build (wall) | CPU | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['side']} | {r['spec']} | {human(r['spec_bytes'])} "
              f"| {human(r['expansion_bytes'])} | {r['build_s']:.1f} s | {r['cpu_s']:.1f} s "
              f"| {human(r['peak_rss_bytes'])} |")
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
