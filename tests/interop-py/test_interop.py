"""Interop: the official MCP Python SDK client (`mcp`, pinned with hashes in
requirements.txt) drives the real splice binary over stdio, in both protocol
eras: the initialize handshake (`mode="legacy"`, 2025-11-25) and the
stateless 2026-07-28 protocol (`mode="2026-07-28"`, what the SDK's `Client`
negotiates by default). The SDK validates every successful structured result
against the tool's outputSchema.

Run by tests/tests/it/interop_py.rs (cargo test), which sets SPLICE_BIN and
installs the venv when it is missing; by hand:

    SPLICE_BIN=target/debug/splice tests/interop-py/.venv/bin/python -m unittest -v tests/interop-py/test_interop.py

In the 2026-07-28 era the SDK states its capabilities in each request's
`_meta`, answers splice's `roots/list` input request (an MRTR
`InputRequiredResult`) through `list_roots_callback` and retries the call;
it cancels with `notifications/cancelled` on stdio, as in the older era.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

BIN = os.environ.get("SPLICE_BIN")

# The answer bound documented in the README (both copies, as sent).
MAX_ANSWER_BYTES = 4 * 1024 * 1024


class Era:
    """One protocol era; the suites below run once per era."""

    mode = "legacy"

    def setUp(self):
        if not BIN:
            raise unittest.SkipTest("SPLICE_BIN is not set")
        self.root = Path(tempfile.mkdtemp(prefix="splice-py-")).resolve()

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def client(self, *extra: str, roots: list[Path] | None = None) -> Client:
        params = StdioServerParameters(
            command=BIN,
            args=["--root", str(self.root), "--journal-dir", str(self.root / ".journal"), *extra],
            env={"RUST_LOG": "warn", "PATH": os.environ.get("PATH", "")},
        )
        callback = None
        if roots is not None:

            async def callback(_ctx):
                return types.ListRootsResult(roots=[types.Root(uri=p.as_uri()) for p in roots])

        return Client(params, mode=self.mode, list_roots_callback=callback)

    def file(self, name: str, text: str) -> Path:
        p = self.root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def answer(self, r: types.CallToolResult) -> dict:
        """The structured answer, after checking the text copy says the same."""
        self.assertIsNotNone(r.structured_content, r)
        self.assertEqual(json.loads(r.content[0].text), r.structured_content)
        return r.structured_content


class Tools(Era):
    async def test_list_tools_schemas_are_portable(self):
        async with self.client() as c:
            tools = (await c.list_tools()).tools
        self.assertEqual(
            sorted(t.name for t in tools), ["list_transactions", "multi_edit", "multi_edit_files", "undo"]
        )
        for t in tools:
            self.assertEqual(t.annotations.read_only_hint, t.name == "list_transactions", t.name)
            text = json.dumps(t.input_schema)
            for bad in ('"$ref"', '"$defs"', '"$schema"', '"null"'):
                self.assertNotIn(bad, text, t.name)
            self.assertEqual(t.output_schema["type"], "object")
            if t.name not in ("multi_edit", "multi_edit_files"):
                continue
            # multi_edit never creates files; multi_edit_files says how it does.
            self.assertIn("never creat" if t.name == "multi_edit" else "create_parents", t.description)
            self.assertIn(".bak", t.description)

    async def test_success_and_dry_run(self):
        p = self.file("ok.txt", "alpha\nbeta\ngamma\n")
        async with self.client() as c:
            dry = self.answer(
                await c.call_tool(
                    "multi_edit",
                    {"file_path": str(p), "edits": [{"old_string": "beta", "new_string": "BETA"}], "dry_run": True},
                )
            )
            self.assertTrue(dry["success"] and dry["dry_run"])
            rel = str(p).lstrip("/")
            self.assertTrue(dry["diff_preview"].startswith(f"--- a/{rel}\n+++ b/{rel}\n@@"), dry["diff_preview"])
            self.assertEqual(p.read_text(), "alpha\nbeta\ngamma\n")
            self.assertFalse(Path(f"{p}.bak").exists())

            r = await c.call_tool(
                "multi_edit",
                {
                    "file_path": str(p),
                    "edits": [{"old_string": "alpha", "new_string": "ALPHA"}, {"old_string": "gamma", "new_string": "GAMMA"}],
                    "include_content": True,
                },
            )
            self.assertFalse(r.is_error)
            ok = self.answer(r)
            self.assertEqual(ok["edits_applied"], 2)
            self.assertEqual(
                [(e["old_string"], e["matched"], e["occurrences_replaced"]) for e in ok["edits"]],
                [("alpha", True, 1), ("gamma", True, 1)],
            )
            self.assertEqual(ok["final_content"], "ALPHA\nbeta\nGAMMA\n")
            self.assertEqual(p.read_text(), "ALPHA\nbeta\nGAMMA\n")
            self.assertEqual(Path(ok["backup_path"]).read_text(), "alpha\nbeta\ngamma\n")

            a = self.file("a.txt", "a1\n")
            b = self.file("b.txt", "b1\n")
            many = self.answer(
                await c.call_tool(
                    "multi_edit_files",
                    {
                        "files": [
                            {"file_path": str(a), "edits": [{"old_string": "a1", "new_string": "a2"}]},
                            {"file_path": str(b), "edits": [{"old_string": "b1", "new_string": "b2"}]},
                        ],
                        "backup": False,
                    },
                )
            )
            self.assertEqual(many["files_edited"], 2)
            self.assertEqual(many["summary"], {"total_files": 2, "files_succeeded": 2, "files_failed": 0, "total_edits": 2})
            self.assertEqual([f["file_path"] for f in many["file_results"]], [str(a), str(b)])
            self.assertEqual((a.read_text(), b.read_text()), ("a2\n", "b2\n"))

    async def test_create_delete_and_move(self):
        keep = self.file("keep.txt", "k1\n")
        gone = self.file("gone.txt", "bye\n")
        src = self.file("src.txt", "s1\n")
        created = keep.parent / "made" / "new.txt"
        moved = keep.parent / "moved" / "src.txt"
        async with self.client() as c:
            ok = self.answer(
                await c.call_tool(
                    "multi_edit_files",
                    {
                        "files": [
                            {"file_path": str(keep), "edits": [{"old_string": "k1", "new_string": "k2"}]},
                            {"file_path": str(created), "op": "create", "content": "new\n", "create_parents": True},
                            {"file_path": str(gone), "op": "delete"},
                            {"file_path": str(src), "op": "move", "move_to": str(moved), "create_parents": True},
                        ],
                        "backup": False,
                    },
                )
            )
            self.assertEqual([f.get("op") for f in ok["file_results"]], [None, "create", "delete", "move"])
            self.assertEqual(ok["file_results"][3]["moved_to"], str(moved))
            self.assertEqual((created.read_text(), moved.read_text()), ("new\n", "s1\n"))
            self.assertFalse(gone.exists() or src.exists())
            for args, code in [
                ({"files": [{"file_path": str(created), "op": "create", "content": "x"}]}, "FILE_ALREADY_EXISTS"),
                ({"files": [{"file_path": str(keep.parent / "no" / "x.txt"), "op": "create", "content": "x"}]}, "PARENT_DIRECTORY_MISSING"),
            ]:
                r = await c.call_tool("multi_edit_files", args)
                self.assertTrue(r.is_error, r)
                self.assertEqual(self.answer(r)["error_code"], code)
            r = await c.call_tool(
                "multi_edit_files",
                {"files": [{"file_path": str(moved), "op": "move", "move_to": str(keep)}, {"file_path": str(keep), "op": "delete"}]},
            )
            self.assertEqual([v["code"] for v in self.answer(r)["violations"]], ["PATH_CONFLICT"])
            r = await c.call_tool("multi_edit_files", {"files": [{"file_path": str(moved), "op": "move", "move_to": str(moved)}]})
            self.assertEqual([v["code"] for v in self.answer(r)["violations"]], ["MOVE_ONTO_ITSELF"])

    async def test_undo_and_redo(self):
        a = self.file("ua.txt", "a1\n")
        gone = self.file("ugone.txt", "bye\n")
        src = self.file("usrc.txt", "s1\n")
        moved = self.root / "umoved" / "usrc.txt"
        async with self.client() as c:
            ok = self.answer(
                await c.call_tool(
                    "multi_edit_files",
                    {
                        "files": [
                            {"file_path": str(a), "edits": [{"old_string": "a1", "new_string": "a2"}]},
                            {"file_path": str(gone), "op": "delete"},
                            {"file_path": str(src), "op": "move", "move_to": str(moved), "create_parents": True},
                        ],
                        "backup": False,
                    },
                )
            )
            tx = ok["transaction_id"]
            listed = self.answer(await c.call_tool("list_transactions", {}))
            self.assertEqual(listed["transactions"][0]["transaction_id"], tx)
            self.assertEqual(
                sorted(f["operation"] for f in listed["transactions"][0]["files"]),
                ["delete", "edit", "move_from", "move_to"],
            )
            undo = self.answer(await c.call_tool("undo", {"transaction_id": tx}))
            self.assertEqual((a.read_text(), gone.read_text(), src.read_text()), ("a1\n", "bye\n", "s1\n"))
            self.assertFalse(moved.exists())
            redo = self.answer(await c.call_tool("undo", {"transaction_id": undo["transaction_id"]}))
            self.assertEqual((a.read_text(), moved.read_text()), ("a2\n", "s1\n"))
            self.assertFalse(gone.exists() or src.exists())
            moved.write_text("changed outside\n")
            r = await c.call_tool("undo", {"transaction_id": redo["transaction_id"]})
            self.assertTrue(r.is_error, r)
            e = self.answer(r)
            self.assertEqual(e["error_code"], "UNDO_CONFLICT")
            self.assertEqual([f["file_path"] for f in e["context"]["changed_files"]], [str(moved)])
            self.assertEqual(moved.read_text(), "changed outside\n")
            r = await c.call_tool("undo", {"transaction_id": "000000000000-00000000-00000000"})
            self.assertEqual(self.answer(r)["error_code"], "TRANSACTION_NOT_FOUND")

    async def test_each_error_class(self):
        p = self.file("e.txt", "x = 1\nx = 1\ny\n")
        original = p.read_text()
        async with self.client("--max-files", "3") as c:

            async def err(tool, args):
                r = await c.call_tool(tool, args)
                self.assertTrue(r.is_error, r)
                return self.answer(r)

            # validation: every problem at once, EMPTY_OLD_STRING beside DUPLICATE_FILE_PATH.
            e = await err(
                "multi_edit_files",
                {
                    "files": [
                        {"file_path": str(p), "edits": [{"old_string": "", "new_string": "z"}]},
                        {"file_path": str(p), "edits": [{"old_string": "y", "new_string": "z"}]},
                    ]
                },
            )
            self.assertEqual((e["error_code"], e["category"], e["cause"]), ("VALIDATION_FAILED", "validation", "input"))
            self.assertEqual(
                sorted((v["path"], v["code"]) for v in e["violations"]),
                [("files[0].edits[0].old_string", "EMPTY_OLD_STRING"), ("files[1].file_path", "DUPLICATE_FILE_PATH")],
            )
            e = await err("multi_edit_files", {"files": [{"file_path": str(p), "edits": [{"old_string": "y", "new_string": "z"}]}] * 4})
            self.assertEqual(e["violations"][0]["code"], "TOO_MANY_FILES")
            e = await err("multi_edit", {"file_path": "/etc/hostname", "edits": [{"old_string": "a", "new_string": "b"}]})
            self.assertEqual(e["error_code"], "PATH_OUTSIDE_ROOTS")
            # domain
            e = await err("multi_edit", {"file_path": str(p), "edits": [{"old_string": "nope", "new_string": "b"}]})
            self.assertEqual((e["error_code"], e["category"], e["retryable"]), ("MATCH_NOT_FOUND", "domain", True))
            self.assertIn("x = 1", e["context"]["snippet"])
            e = await err("multi_edit", {"file_path": str(p), "edits": [{"old_string": "x = 1", "new_string": "b"}]})
            self.assertEqual(e["error_code"], "AMBIGUOUS_MATCH")
            self.assertEqual([loc["line"] for loc in e["context"]["match_locations"]], [1, 2])
            e = await err(
                "multi_edit",
                {"file_path": str(p), "edits": [{"old_string": "y", "new_string": "b"}], "expected_sha256": "0" * 64},
            )
            self.assertEqual(e["error_code"], "STALE_FILE")
            # external
            e = await err("multi_edit", {"file_path": str(self.root / "missing.txt"), "edits": [{"old_string": "a", "new_string": "b"}]})
            self.assertEqual((e["error_code"], e["category"]), ("FILE_NOT_FOUND", "external"))
            (self.root / "dir").mkdir()
            e = await err("multi_edit", {"file_path": str(self.root / "dir"), "edits": [{"old_string": "a", "new_string": "b"}]})
            self.assertEqual(e["error_code"], "NOT_A_REGULAR_FILE")
            # protocol: an unknown tool is a JSON-RPC error, not a tool result
            with self.assertRaises(MCPError) as caught:
                await c.call_tool("no_such_tool", {})
            self.assertEqual(caught.exception.code, -32602)
        self.assertEqual(p.read_text(), original)
        self.assertFalse(Path(f"{p}.bak").exists())

class OutputSchemaModels(unittest.IsolatedAsyncioTestCase):
    """datamodel-code-generator (pinned in requirements.txt) turns each
    tool's outputSchema, alone, into pydantic models: one per error code
    (or per group of codes with the same context), pinning its error_code
    and requiring the context the code requires, and no type lost to Any
    (issue #27). A `dict[str, Any]` is a free-form JSON
    object (`context` of a code that carries none), not a lost type."""

    async def test_one_model_per_code_and_nothing_degrades_to_any(self):
        if not BIN:
            raise unittest.SkipTest("SPLICE_BIN is not set")
        root = Path(tempfile.mkdtemp(prefix="splice-py-models-")).resolve()
        self.addCleanup(shutil.rmtree, root, True)
        params = StdioServerParameters(
            command=BIN,
            args=["--root", str(root), "--journal-dir", str(root / ".journal")],
            env={"RUST_LOG": "warn", "PATH": os.environ.get("PATH", "")},
        )
        async with Client(params, mode="legacy") as c:
            tools = (await c.list_tools()).tools
        schemas, out = root / "schemas", root / "models"
        schemas.mkdir()
        for t in tools:
            (schemas / f"{t.name}.json").write_text(json.dumps(t.output_schema))
        codegen = Path(sys.executable).with_name("datamodel-codegen")
        # One run over the directory: one module per schema.
        run = await asyncio.to_thread(
            subprocess.run,
            [str(codegen), "--input", str(schemas), "--input-file-type", "jsonschema",
             "--output", str(out), "--output-model-type", "pydantic_v2.BaseModel",
             "--use-title-as-name", "--formatters", "builtin", "--disable-timestamp"],
            capture_output=True, text=True, timeout=300,
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        for t in tools:
            code = (out / f"{t.name}.py").read_text()
            self.assertNotIn("RootModel[Any]", code, t.name)
            lost = [line for line in code.splitlines() if "Any" in line.replace("dict[str, Any]", "")
                    and not line.startswith("from typing import")]
            self.assertEqual(lost, [], f"{t.name}: types lost to Any")
            variants = t.output_schema["anyOf"][1]["oneOf"]
            self.assertGreater(len(variants), 1, t.name)
            for v in variants:
                name = v["properties"]["error_code"]
                body = re.search(rf"^class {v['title']}\(BaseModel\):\n((?:    .*\n|\n)*)", code, re.M)
                self.assertIsNotNone(body, f"{t.name}: no model {v['title']} for {name}")
                if "enum" in name:
                    # Codes that share a context share a model, their codes
                    # an enum of their own.
                    self.assertRegex(body[1], rf"\n    error_code: {name['title']}\b(?! \| None)", f"{t.name}: {v['title']}")
                    members = re.search(rf"^class {name['title']}\(Enum\):\n((?:    .*\n)*)", code, re.M)
                    self.assertIsNotNone(members, f"{t.name}: no enum {name['title']}")
                    self.assertEqual(re.findall(r"= '([A-Z_]+)'", members[1]), name["enum"], t.name)
                else:
                    self.assertIn(f"error_code: Literal['{name['const']}']", body[1], f"{t.name}: {v['title']}")
                if "context" in v.get("required", []):
                    context = v["properties"]["context"]["$ref"].rsplit("/", 1)[1]
                    self.assertRegex(body[1], rf"\n    context: {context}\b(?! \| None)", f"{t.name}: {v['title']}")


class Concurrency(Era):
    async def test_parallel_calls_on_one_file(self):
        p = self.file("par.txt", "".join(f"line {i}\n" for i in range(50)))
        async with self.client() as c:
            results = await asyncio.gather(
                *(
                    c.call_tool(
                        "multi_edit",
                        {"file_path": str(p), "edits": [{"old_string": f"line {i}\n", "new_string": f"LINE {i}\n"}], "backup": False},
                    )
                    for i in range(50)
                )
            )
        failed = [r.structured_content.get("error_code") for r in results if r.is_error]
        self.assertEqual(failed, [])
        self.assertEqual(p.read_text(), "".join(f"LINE {i}\n" for i in range(50)))

    async def test_cancelled_call_does_not_write(self):
        p = self.file("held.txt", "before\n")
        with open(p, "rb") as held:
            # splice takes an flock on the file it commits: hold it so the
            # call waits, then give up on the call (the SDK sends
            # notifications/cancelled on timeout).
            fcntl.flock(held, fcntl.LOCK_EX)
            async with self.client() as c:
                with self.assertRaises(Exception):
                    await c.call_tool(
                        "multi_edit",
                        {"file_path": str(p), "edits": [{"old_string": "before", "new_string": "after"}]},
                        read_timeout_seconds=1.0,
                    )
                # Let notifications/cancelled reach the server before the
                # lock is free: only a cancel that arrives before the commit
                # point must stop the write.
                await asyncio.sleep(1.0)
                fcntl.flock(held, fcntl.LOCK_UN)
                # The server keeps serving; the cancelled edit never lands.
                await asyncio.sleep(1.0)
                r = await c.call_tool(
                    "multi_edit", {"file_path": str(p), "edits": [{"old_string": "before", "new_string": "before"}]}
                )
                self.assertFalse(r.is_error, r)
        self.assertEqual(p.read_text(), "before\n")
        self.assertFalse(Path(f"{p}.bak").exists())


class Roots(Era):
    async def check_roots_narrow(self):
        sub = self.root / "sub"
        inside = self.file("sub/in.txt", "in\n")
        outside = self.file("out.txt", "out\n")
        async with self.client(roots=[sub]) as c:

            async def edit(p, a, b):
                return await c.call_tool("multi_edit", {"file_path": str(p), "edits": [{"old_string": a, "new_string": b}], "backup": False})

            ok = await edit(inside, "in", "IN")
            self.assertFalse(ok.is_error, ok)
            refused = await edit(outside, "out", "OUT")
            self.assertTrue(refused.is_error, "a path outside the client's roots was edited")
            self.assertEqual(refused.structured_content["error_code"], "PATH_OUTSIDE_ROOTS")
            self.assertEqual(refused.structured_content["context"]["roots_source"], "client")
        self.assertEqual(inside.read_text(), "IN\n")
        self.assertEqual(outside.read_text(), "out\n")

    async def check_empty_roots_refuse_and_say_so(self):
        p = self.file("any.txt", "x\n")
        async with self.client(roots=[]) as c:
            r = await c.call_tool("multi_edit", {"file_path": str(p), "edits": [{"old_string": "x", "new_string": "y"}]})
        self.assertTrue(r.is_error, r)
        e = self.answer(r)
        self.assertEqual((e["error_code"], e["context"]["roots_source"]), ("PATH_OUTSIDE_ROOTS", "client_empty"))
        self.assertTrue(any("--client-roots ignore" in h for h in e["recovery_hints"]), e["recovery_hints"])
        self.assertEqual(p.read_text(), "x\n")


class ModernLargeAnswer(Era, unittest.IsolatedAsyncioTestCase):
    """The answer bound does not depend on the era: run it once, in the
    era the SDK's Client negotiates by default."""

    mode = "2026-07-28"

    async def test_large_multi_file_answer_is_bounded(self):
        # 100 files (the default --max-files), each rewritten on every line:
        # without the bound, diffs and contents would answer ~30 MB.
        line = "value_{:05} = compute(alpha, beta, gamma)  # note\n"
        text = "".join(line.format(i) for i in range(1000))
        paths = [self.file(f"big/f{i:03}.py", text) for i in range(100)]
        args = {
            "dry_run": True,
            "include_content": True,
            "files": [
                {"file_path": str(p), "edits": [{"old_string": "compute", "new_string": "COMPUTE", "replace_all": True}]}
                for p in paths
            ],
        }
        async with self.client() as c:
            r = await c.call_tool("multi_edit_files", args)
        self.assertFalse(r.is_error, str(r)[:2000])
        ok = self.answer(r)
        wire = len(json.dumps(ok, separators=(",", ":"), ensure_ascii=False).encode()) + len(
            json.dumps(r.content[0].text, ensure_ascii=False).encode()
        )
        self.assertLess(wire, MAX_ANSWER_BYTES)
        files = ok["file_results"]
        self.assertEqual(len(files), 100)
        # Contents go first (from every file), then diffs from the last file
        # backwards: the first files keep their diffs.
        self.assertEqual(files[0]["omitted"], ["final_content"])
        self.assertTrue(files[0]["diff_preview"].startswith("--- a/"))
        self.assertEqual(files[-1]["omitted"], ["final_content", "diff_preview"])
        self.assertIn("answer limited to 4 MiB", ok["message"])
        for f in files:
            for field in f.get("omitted", []):
                self.assertNotIn(field, f)
            self.assertEqual(f["replacements"], 1000)
        self.assertEqual(paths[0].read_text(), text)



class LegacyTools(Tools, unittest.IsolatedAsyncioTestCase):
    mode = "legacy"


class ModernTools(Tools, unittest.IsolatedAsyncioTestCase):
    mode = "2026-07-28"


class LegacyConcurrency(Concurrency, unittest.IsolatedAsyncioTestCase):
    mode = "legacy"


class ModernConcurrency(Concurrency, unittest.IsolatedAsyncioTestCase):
    mode = "2026-07-28"


class LegacyRoots(Roots, unittest.IsolatedAsyncioTestCase):
    mode = "legacy"

    async def test_client_roots_narrow(self):
        await self.check_roots_narrow()

    async def test_client_with_empty_roots(self):
        await self.check_empty_roots_refuse_and_say_so()


class ModernRoots(Roots, unittest.IsolatedAsyncioTestCase):
    mode = "2026-07-28"

    async def test_client_roots_narrow(self):
        await self.check_roots_narrow()

    async def test_client_with_empty_roots(self):
        await self.check_empty_roots_refuse_and_say_so()


if __name__ == "__main__":
    unittest.main(verbosity=2)
