"""Reads every payload of cases.json (argv[1]) with the generated module of
its spec: `is_listed(env)`, `code_info(env).name` and `family_of(env)`,
then `codes_of(response)` of each of its responses. Prints one JSON list,
`{"listed": ..., "code": ..., "family": ...}` per payload, `{"codes": [...]}`
per response, or `{"error": ...}` when the module raises."""

import importlib.util
import json
import sys

out = []
with open(sys.argv[1], encoding="utf-8") as f:
    cases = json.load(f)
for case in cases:
    spec = importlib.util.spec_from_file_location(case["name"], case["py"])
    module = importlib.util.module_from_spec(spec)
    sys.modules[case["name"]] = module
    spec.loader.exec_module(module)
    for env in case["payloads"]:
        try:
            info = module.code_info(env)
            family_of = getattr(module, "family_of", None)
            fam = None if family_of is None else family_of(env)
            out.append(
                {
                    "listed": module.is_listed(env),
                    "code": None if info is None else info.name,
                    "family": None
                    if fam is None
                    else [fam.name, fam.category, fam.retryable, fam.cause],
                }
            )
        except Exception as e:  # noqa: BLE001 - reported as a disagreement
            out.append({"error": f"{type(e).__name__}: {e}"})
    for response in case["responses"]:
        try:
            out.append({"codes": [None if i is None else i.name for i in module.codes_of(response)]})
        except Exception as e:  # noqa: BLE001 - reported as a disagreement
            out.append({"error": f"{type(e).__name__}: {e}"})
print(json.dumps(out))
