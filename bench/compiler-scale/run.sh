#!/usr/bin/env bash
# How splice-codegen scales in codes: `check`, `generate` and `rust` on
# 10,000, 20,000 and 40,000 codes (release build), each under
# `/usr/bin/time -v` (wall and CPU time, peak RSS). The specs are
# bench/macro-scale's `8-fields` spec (100 declared fields, 8 per code, two
# parameters and three hints per code) with category ranges wide enough for
# 40,000 codes. A benchmark, not a test: not part of `cargo test` or CI.
#
#   bash bench/compiler-scale/run.sh      (builds the release binary first)
#
# Specs, outputs and the raw `time -v` reports go to target/compiler-scale/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cargo build --release --locked -p splice-codegen --manifest-path "$root/Cargo.toml" >&2
bin="$root/target/release/splice-codegen"
mkdir -p "$root/target/compiler-scale"
cd "$root/target/compiler-scale"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$root/bench/macro-scale/run.py" <<'PY'
import importlib.util, sys
spec_ = importlib.util.spec_from_file_location("ms", sys.argv[1])
ms = importlib.util.module_from_spec(spec_); spec_.loader.exec_module(ms)
ms.CATEGORIES = [("validation", 100000), ("domain", 200000), ("external", 400000), ("internal", 900000)]
for n in (10000, 20000, 40000):
    text, _ = ms.spec(n, "8-fields")
    import re
    text = re.sub(r"range: \[(\d+), (\d+)\]", lambda m: f"range: [{m.group(1)}, {int(m.group(1)) + 99999}]", text)
    open(f"spec-{n}.yaml", "w").write(text)
PY
for n in 10000 20000 40000; do
  for cmd in check generate rust; do
    rm -rf out-$n
    case $cmd in
      check) args=(check spec-$n.yaml) ;;
      generate) args=(generate spec-$n.yaml --out out-$n) ;;
      rust) args=(rust spec-$n.yaml) ;;
    esac
    /usr/bin/time -v "$bin" "${args[@]}" > /dev/null 2> time-$cmd-$n.txt || { echo "FAIL $cmd $n"; tail -5 time-$cmd-$n.txt; }
    wall=$(grep "Elapsed (wall" time-$cmd-$n.txt | awk '{print $NF}')
    user=$(grep "User time" time-$cmd-$n.txt | awk '{print $NF}')
    sys=$(grep "System time" time-$cmd-$n.txt | awk '{print $NF}')
    rss=$(grep "Maximum resident" time-$cmd-$n.txt | awk '{print $NF}')
    echo "$cmd $n wall=$wall user=$user sys=$sys maxrss_kb=$rss"
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
