"""`splice-codegen lsp` driven by a client we did not write: pytest-lsp
(pygls's client, pinned with hashes in requirements.txt).

One server process for the whole module (`scope="module"`): each test
opens documents of its own URI. `SPLICE_CODEGEN` names the binary
(codegen/tests/it/lsp.rs sets it).

The server answers a request about a document from the check of its
current version and publishes that check's diagnostics just before, so
after any request returns, `client.diagnostics[uri]` holds the problems of
the text the request saw.
"""

from __future__ import annotations

import os
import pathlib
import re

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPLICE = (ROOT / "errors.yaml").read_text(encoding="utf-8")
HTTP_FETCH = (ROOT / "examples/http-fetch/errors.yaml").read_text(encoding="utf-8")
SERVER = [os.environ.get("SPLICE_CODEGEN", str(ROOT / "target/debug/splice-codegen")), "lsp"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        t.InitializeParams(
            capabilities=t.ClientCapabilities(
                text_document=t.TextDocumentClientCapabilities(
                    document_symbol=t.DocumentSymbolClientCapabilities(
                        hierarchical_document_symbol_support=True
                    ),
                    rename=t.RenameClientCapabilities(prepare_support=True),
                )
            )
        )
    )
    yield
    await lsp_client.shutdown_session()


# --------------------------------------------------------------- helpers

_versions: dict[str, int] = {}


def uri_of(name: str) -> str:
    return f"file:///specs/{name}/errors.yaml"


async def symbols(client: LanguageClient, uri: str) -> list[t.DocumentSymbol]:
    return await client.text_document_document_symbol_async(
        t.DocumentSymbolParams(text_document=t.TextDocumentIdentifier(uri=uri))
    )


async def open_doc(client: LanguageClient, name: str, text: str) -> tuple[str, list[t.Diagnostic]]:
    """Opens `text` and returns its URI and its diagnostics."""
    uri = uri_of(name)
    _versions[uri] = 1
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(
            text_document=t.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    await symbols(client, uri)
    return uri, list(client.diagnostics.get(uri, []))


async def change(client: LanguageClient, uri: str, *edits, wait: bool = True) -> list[t.Diagnostic]:
    """Sends one didChange of incremental `edits` ((start, end, text) with
    (line, UTF-16 column) positions, or a whole text)."""
    _versions[uri] += 1
    changes = []
    for e in edits:
        if isinstance(e, str):
            changes.append(t.TextDocumentContentChangeWholeDocument(text=e))
        else:
            (sl, sc), (el, ec), text = e
            changes.append(
                t.TextDocumentContentChangePartial(
                    range=t.Range(start=t.Position(sl, sc), end=t.Position(el, ec)), text=text
                )
            )
    client.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=_versions[uri]),
            content_changes=changes,
        )
    )
    if wait:
        await symbols(client, uri)
    return list(client.diagnostics.get(uri, []))


def pos(text: str, needle: str, nth: int = 0, delta: int = 0) -> t.Position:
    """The LSP position (UTF-16 columns) of the `nth` occurrence of `needle`."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += delta
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    col = len(text[start:at].encode("utf-16-le")) // 2
    return t.Position(line=line, character=col)


def apply(text: str, edits: list[t.TextEdit]) -> str:
    lines = text.split("\n")

    def offset(p: t.Position) -> int:
        before = sum(len(l) + 1 for l in lines[: p.line])
        line = lines[p.line]
        units = 0
        for i, ch in enumerate(line):
            if units >= p.character:
                return before + i
            units += len(ch.encode("utf-16-le")) // 2
        return before + len(line)

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a, b = offset(e.range.start), offset(e.range.end)
        text = text[:a] + e.new_text + text[b:]
        lines = text.split("\n")
    return text


async def hover(client: LanguageClient, uri: str, p: t.Position) -> str:
    h = await client.text_document_hover_async(
        t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri), position=p)
    )
    assert h is not None, f"no hover at {p}"
    return h.contents.value


async def complete(client: LanguageClient, uri: str, p: t.Position) -> list[str]:
    items = await client.text_document_completion_async(
        t.CompletionParams(text_document=t.TextDocumentIdentifier(uri=uri), position=p)
    )
    items = items.items if isinstance(items, t.CompletionList) else items
    return [i.label for i in items or []]


def codes_in(text: str) -> list[str]:
    body = text[text.index("\ncodes:\n") :]
    return re.findall(r"^  ([A-Z][A-Z0-9_]*):\s*$", body, re.M)


# ------------------------------------------------- splice's own errors.yaml


async def test_splice_spec_has_no_problems_and_a_full_outline(client: LanguageClient):
    uri, diags = await open_doc(client, "splice-outline", SPLICE)
    assert diags == []
    outline = {s.name: s for s in await symbols(client, uri)}
    assert {"taxonomy", "categories", "types", "fields", "codes"} <= outline.keys()
    codes = outline["codes"].children
    assert [c.name for c in codes] == codes_in(SPLICE)
    match = next(c for c in codes if c.name == "MATCH_NOT_FOUND")
    assert match.kind == t.SymbolKind.Constant and match.detail.startswith("2000 ")
    assert match.selection_range.start == pos(SPLICE, "  MATCH_NOT_FOUND:", delta=2)
    edit_status = next(s for s in outline["types"].children if s.name == "EditStatus")
    assert [m.name for m in edit_status.children][:2] == ["edit_index", "status"]


async def test_splice_hover_explains_codes_categories_types_fields_and_keys(client: LanguageClient):
    uri, _ = await open_doc(client, "splice-hover", SPLICE)
    code = await hover(client, uri, pos(SPLICE, "  MATCH_NOT_FOUND:", delta=4))
    for part in ["MATCH_NOT_FOUND", "2000", "category: `domain`", "**yes**",
                 "the caller can fix its call and retry", "cause: `input`", "recovery hints"]:
        assert part in code, (part, code)
    category = await hover(client, uri, pos(SPLICE, "category: domain", delta=11))
    assert "category `domain`" in category and "[2000, 2999]" in category
    ty = await hover(client, uri, pos(SPLICE, "type: EditState", delta=7))
    assert "enum: `failed`, `would_apply`, `skipped`" in ty
    ty = await hover(client, uri, pos(SPLICE, "  EditStatus:", delta=3))
    assert "`edit_index`: `integer`" in ty and "`error_code`?" in ty
    field = await hover(client, uri, pos(SPLICE, "required: [file_path", delta=12))
    assert "context field `file_path`" in field and "top_level" in field
    key = await hover(client, uri, pos(SPLICE, "    recovery_hints:", delta=6))
    assert key.startswith("`recovery_hints`:")
    value = await hover(client, uri, pos(SPLICE, "cause: environment", delta=9))
    assert "file system" in value


async def test_splice_definition_and_references(client: LanguageClient):
    uri, _ = await open_doc(client, "splice-refs", SPLICE)
    doc = t.TextDocumentIdentifier(uri=uri)
    loc = await client.text_document_definition_async(
        t.DefinitionParams(text_document=doc, position=pos(SPLICE, "category: external", delta=12))
    )
    assert loc.range.start == pos(SPLICE, "  external:", delta=2)
    # The field `edit_index`: its declaration, every context list naming it
    # and every `{edit_index}` in a template.
    refs = await client.text_document_references_async(
        t.ReferenceParams(
            text_document=doc,
            position=pos(SPLICE, "  edit_index:\n    type", delta=3),
            context=t.ReferenceContext(include_declaration=True),
        )
    )
    body = SPLICE[SPLICE.index("\ncodes:\n") :]
    in_lists = sum(len(re.findall(r"\bedit_index\b", m)) for m in re.findall(r"(?:required|optional): \[([^\]]*)\]", body))
    in_templates = body.count("{edit_index}")
    assert len(refs) == 1 + in_lists + in_templates, refs
    assert all(r.uri == uri for r in refs)
    # A type named inside a spelling: `EditStatus[]`.
    refs = await client.text_document_references_async(
        t.ReferenceParams(
            text_document=doc,
            position=pos(SPLICE, "  EditStatus:", delta=2),
            context=t.ReferenceContext(include_declaration=False),
        )
    )
    assert refs and all(SPLICE.splitlines()[r.range.start.line].strip().startswith("type:") for r in refs)


async def test_splice_rename_of_a_field_keeps_the_spec_valid(client: LanguageClient):
    uri, _ = await open_doc(client, "splice-rename", SPLICE)
    doc = t.TextDocumentIdentifier(uri=uri)
    at = pos(SPLICE, "required: [file_path", delta=12)
    prepared = await client.text_document_prepare_rename_async(
        t.PrepareRenameParams(text_document=doc, position=at)
    )
    assert prepared.placeholder == "file_path"
    edit = await client.text_document_rename_async(
        t.RenameParams(text_document=doc, position=at, new_name="target_path")
    )
    renamed = apply(SPLICE, edit.changes[uri])
    assert "\n  target_path:\n" in renamed and "\n  file_path:\n" not in renamed
    assert "{file_path}" not in renamed and "{target_path}" in renamed
    lists = re.findall(r"(?:required|optional): \[([^\]]*)\]", renamed)
    assert not any(re.search(r"\bfile_path\b", l) for l in lists)
    # A member of the same name in a type is another thing: untouched.
    assert "      file_path:\n        type: string" in renamed
    # Every placeholder and list followed: the renamed spec still checks.
    assert await change(client, uri, renamed) == []
    with pytest.raises(Exception, match="not a valid context field name"):
        await client.text_document_rename_async(
            t.RenameParams(text_document=doc, position=pos(renamed, "target_path"), new_name="TargetPath")
        )


async def test_splice_completion(client: LanguageClient):
    text = SPLICE.replace("    category: domain\n", "    category: \n", 1)
    uri, _ = await open_doc(client, "splice-complete", text)
    at = pos(text, "    category: \n", delta=14)
    assert await complete(client, uri, at) == ["validation", "domain", "session", "external", "configuration", "internal"]
    # Keys of a code not written yet, on a new line inside it.
    line = text.index("    category: \n")
    text2 = text[:line] + "    ret\n" + text[line:]
    await change(client, uri, text2)
    keys = await complete(client, uri, pos(text2, "    ret\n", delta=7))
    assert "retryable" in keys and "title" not in keys and "category" not in keys
    # A placeholder: the code's parameters and required scalar fields.
    # The code being edited does not parse (`ret` has no value yet): its
    # line is skipped and the rest of the code still counts.
    needle = 'message: "edit {edit_index}: old_string was not found'
    labels = await complete(client, uri, pos(text2, needle, delta=len('message: "edit {')))
    assert labels == ["file_path", "edit_index", "snippet"]


# ----------------------------------------------------- problems and fixes


BROKEN = """taxonomy:
  name: démo 😀
  version: 1.0.0
  base_uri: schema://demo
categories:
  domain:
    range: [2000, 2999]
    description: The edits do not apply.
    retryable: true
    cause: input
fields:
  file_path: { type: string, in: top_level, doc: The file. }
codes:
  MATCH_NOT_FOUND:
    number: 2000
    category: domain
    since: 1.0.0
    title: old_string was not found
    message: "not found in {file_path}"
    recovery_hints: [Re-read the file]
    context: { required: [file_path] }
    explanation: Not found.
"""


async def test_incremental_changes_and_exact_ranges_after_non_ascii(client: LanguageClient):
    uri, diags = await open_doc(client, "broken", BROKEN)
    assert diags == []
    # Insert before the emoji on the same line as non-ASCII text (UTF-16
    # columns), then misspell the category by a ranged edit.
    diags = await change(client, uri, ((1, 8), (1, 8), "é"))
    assert diags == []
    text = BROKEN.replace("name: démo", "name: édémo")
    at = pos(text, "category: domain", delta=10)
    diags = await change(client, uri, ((at.line, at.character), (at.line, at.character + 6), "domian"))
    text = text.replace("category: domain", "category: domian")
    assert len(diags) == 1, diags
    d = diags[0]
    assert "unknown category `domian`" in d.message and "did you mean `domain`?" in d.message
    assert d.severity == t.DiagnosticSeverity.Error
    assert d.range == t.Range(start=at, end=t.Position(at.line, at.character + 6))
    # A problem on a line with an emoji: columns count UTF-16 units.
    text2 = text.replace("name: édémo 😀", "name: édémo 😀\n  titel: x")
    diags = await change(client, uri, text2)
    unknown = next(d for d in diags if "unknown key `titel`" in d.message)
    assert unknown.range.start == pos(text2, "titel")


async def test_quick_fix_applies_the_did_you_mean(client: LanguageClient):
    text = BROKEN.replace("category: domain", "category: domian")
    uri, diags = await open_doc(client, "quickfix", text)
    assert len(diags) == 1
    actions = await client.text_document_code_action_async(
        t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=diags[0].range,
            context=t.CodeActionContext(diagnostics=diags),
        )
    )
    assert [a.title for a in actions] == ["replace with `domain`"]
    fixed = apply(text, actions[0].edit.changes[uri])
    assert fixed == BROKEN
    assert await change(client, uri, fixed) == []


async def test_quick_fix_gives_the_next_free_number(client: LanguageClient):
    text = BROKEN.replace("explanation: Not found.\n", "explanation: Not found.\n  OTHER:\n    number: 2000\n    category: domain\n    since: 1.0.0\n    title: another\n    message: other\n    recovery_hints: [Retry]\n    explanation: Other.\n")
    uri, diags = await open_doc(client, "next-number", text)
    dup = next(d for d in diags if "already used" in d.message)
    actions = await client.text_document_code_action_async(
        t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=dup.range,
            context=t.CodeActionContext(diagnostics=[dup]),
        )
    )
    assert [a.title for a in actions] == ["replace with `2001`"]
    assert await change(client, uri, apply(text, actions[0].edit.changes[uri])) == []


async def test_a_yaml_error_keeps_the_other_symbols(client: LanguageClient):
    text = SPLICE.replace("    title: old_string was not found in the file\n", "    title: [unclosed\n", 1)
    uri, diags = await open_doc(client, "yaml-error", text)
    assert diags and diags[0].message.startswith("invalid YAML")
    outline = {s.name: s for s in await symbols(client, uri)}
    assert [c.name for c in outline["codes"].children] == codes_in(SPLICE)
    assert len(outline["types"].children) > 5


# ----------------------------------------------------- an example taxonomy


async def test_http_fetch_example(client: LanguageClient):
    uri, diags = await open_doc(client, "http-fetch", HTTP_FETCH)
    assert diags == []
    doc = t.TextDocumentIdentifier(uri=uri)
    outline = {s.name: s for s in await symbols(client, uri)}
    assert [c.name for c in outline["codes"].children] == codes_in(HTTP_FETCH)
    timed_out = await hover(client, uri, pos(HTTP_FETCH, "  TIMED_OUT:", delta=2))
    assert "201" in timed_out and "`network`" in timed_out
    url_refs = await client.text_document_references_async(
        t.ReferenceParams(
            text_document=doc,
            position=pos(HTTP_FETCH, "\n  url:\n", delta=3),
            context=t.ReferenceContext(include_declaration=True),
        )
    )
    assert len(url_refs) >= 1 + len(codes_in(HTTP_FETCH))
    definition = await client.text_document_definition_async(
        t.DefinitionParams(text_document=doc, position=pos(HTTP_FETCH, "type: Redirect[]", delta=7))
    )
    assert definition.range.start == pos(HTTP_FETCH, "  Redirect:", delta=2)
    labels = await complete(client, uri, pos(HTTP_FETCH, "category: network", delta=10))
    assert labels == ["request", "network", "remote"]
    labels = await complete(client, uri, pos(HTTP_FETCH, "type: Redirect[]", delta=6))
    assert {"string", "integer", "Redirect", "Scheme"} <= set(labels)
    edit = await client.text_document_rename_async(
        t.RenameParams(text_document=doc, position=pos(HTTP_FETCH, "  Redirect:", delta=2), new_name="Hop")
    )
    renamed = apply(HTTP_FETCH, edit.changes[uri])
    assert "type: Hop[]" in renamed and "Redirect" not in renamed.split("\ncodes:")[0]
    assert await change(client, uri, renamed) == []


# ----------------------------------------------------------- robustness


async def test_garbage_never_ends_the_server(client: LanguageClient):
    # Binary bytes (as text: NUL, controls, replacement characters).
    uri, diags = await open_doc(client, "binary", "\x00\x01\x02\ufffd\x7f\x1b[0m\x00codes:\x00\n\t\x00")
    assert diags
    # Deeply nested YAML.
    uri, diags = await open_doc(client, "deep", "a: " + "[" * 100_000 + "\n")
    assert diags
    uri, diags = await open_doc(client, "deep-block", "".join(f"{' ' * i}k{i}:\n" for i in range(300)))
    assert diags
    # A 5 MB document: splice's spec repeated, one long list of codes.
    body = SPLICE[SPLICE.index("\ncodes:\n") + len("\ncodes:\n") :]
    head = SPLICE[: SPLICE.index("\ncodes:\n") + len("\ncodes:\n")]
    copies = []
    n = 0
    while sum(map(len, copies)) < 5_000_000:
        copies.append(re.sub(r"^  ([A-Z][A-Z0-9_]*):", lambda m: f"  {m.group(1)}_{n}:", body, flags=re.M))
        n += 1
    big = head + "".join(copies)
    uri, diags = await open_doc(client, "five-megabytes", big)
    assert diags, "the copies reuse numbers"
    outline = {s.name: s for s in await symbols(client, uri)}
    assert len(outline["codes"].children) == len(codes_in(SPLICE)) * n
    # The server still answers.
    uri, diags = await open_doc(client, "after-garbage", BROKEN)
    assert diags == []


async def test_changes_faster_than_checks(client: LanguageClient):
    uri, _ = await open_doc(client, "fast", SPLICE)
    at = pos(SPLICE, "  name: splice", delta=len("  name: splice"))
    for i in range(200):
        await change(client, uri, ((at.line, at.character + i), (at.line, at.character + i), "x"), wait=False)
    # The answer and the diagnostics are those of the last version.
    text = SPLICE.replace("  name: splice", "  name: splice" + "x" * 200, 1)
    h = await hover(client, uri, pos(text, "  MATCH_NOT_FOUND:", delta=4))
    assert "2000" in h
    assert list(client.diagnostics.get(uri)) == []
    await change(client, uri, ((at.line, 2), (at.line, 6), "nom"))
    assert any("unknown key `nom`" in d.message for d in client.diagnostics[uri])
