"""The JSON Schema of the spec format (schema/errors-yaml.schema.json, made
by `splice-codegen generate` from codegen/src/grammar.rs), read by the real
yaml-language-server (npm, pinned by tests/yaml-ls/package-lock.json) the
way an editor without our server reads it: through the modeline
`# yaml-language-server: $schema=...`.

Every spec of the repository validates; a broken one is refused at the
keys the schema does not allow. One yaml-language-server process for the
module, driven by pytest-lsp's client. `YAML_LANGUAGE_SERVER` names the
server's entry point (codegen/tests/it/lsp.rs sets it).
"""

from __future__ import annotations

import os
import pathlib

import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = (ROOT / "schema/errors-yaml.schema.json").as_uri()
SERVER = [
    "node",
    os.environ.get(
        "YAML_LANGUAGE_SERVER",
        str(ROOT / "tests/yaml-ls/node_modules/yaml-language-server/bin/yaml-language-server"),
    ),
    "--stdio",
]
SPECS = sorted(
    p
    for p in [ROOT / "errors.yaml", ROOT / "schema/baseline/errors.yaml", *ROOT.glob("examples/**/errors.yaml")]
    if "target" not in p.parts
)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.set_configuration(
        {"yaml": {"validate": True, "hover": True, "completion": True, "schemaStore": {"enable": False}}}
    )
    await lsp_client.initialize_session(
        t.InitializeParams(
            capabilities=t.ClientCapabilities(
                workspace=t.WorkspaceClientCapabilities(configuration=True),
                text_document=t.TextDocumentClientCapabilities(
                    publish_diagnostics=t.PublishDiagnosticsClientCapabilities()
                ),
            )
        )
    )
    lsp_client.workspace_did_change_configuration(
        t.DidChangeConfigurationParams(
            settings={"yaml": {"validate": True, "schemaStore": {"enable": False}}}
        )
    )
    yield
    await lsp_client.shutdown_session()


MODELINE = "# yaml-language-server: $schema="


async def diagnostics(client: LanguageClient, uri: str, text: str) -> list[t.Diagnostic]:
    """Opens `text` as `uri` and waits for its diagnostics."""
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(
            text_document=t.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    while True:
        await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])


def with_modeline(text: str) -> str:
    """`text` naming the schema by its absolute URI (a copy opened under
    another name, where a relative path would not resolve)."""
    if text.startswith(MODELINE):
        text = text.split("\n", 1)[1]
    return f"{MODELINE}{SCHEMA}\n{text}"


def test_every_spec_of_the_repository_is_listed():
    names = {str(p.relative_to(ROOT)) for p in SPECS}
    assert {"errors.yaml", "examples/http-fetch/errors.yaml"} <= names
    assert len([n for n in names if n.startswith("examples/real-taxonomies/")]) >= 4


async def test_every_spec_validates(client: LanguageClient):
    for path in SPECS:
        text = path.read_text(encoding="utf-8")
        relative = str(path.relative_to(ROOT))
        if relative.startswith("schema/baseline/"):
            # The released spec is a verbatim copy: it gets the modeline
            # here, not in the file.
            found = await diagnostics(client, "file:///specs/baseline/errors.yaml", with_modeline(text))
        else:
            # The committed modeline, relative to the file, is what an
            # editor reads.
            assert text.startswith(MODELINE), f"{relative} has no modeline"
            found = await diagnostics(client, path.as_uri(), text)
        assert found == [], (relative, found)


async def test_a_broken_spec_is_refused(client: LanguageClient):
    text = (ROOT / "examples/http-fetch/errors.yaml").read_text(encoding="utf-8")
    broken = with_modeline(
        text.replace("    category: request\n", "    categroy: request\n", 1)
        .replace("    cause: input\n", "    cause: inputt\n", 1)
        .replace("  version: 0.1.0\n", "  version: one\n", 1)
    )
    found = await diagnostics(client, "file:///specs/broken/errors.yaml", broken)
    lines = broken.split("\n")
    at = {lines[d.range.start.line].strip().split(":")[0]: d.message for d in found}
    assert "categroy" in at, found
    assert "cause" in at and "input" in at["cause"], found
    assert "version" in at, found
    # Without the schema, the same text has no problem for the server.
    found = await diagnostics(client, "file:///specs/unchecked/errors.yaml", broken.split("\n", 1)[1])
    assert found == []
