"""Writes the real payloads of the error formats under examples/real-taxonomies, produced
by their owners' own libraries.

Each taxonomy under examples/real-taxonomies/ describes an error format that already
exists. Its payloads must come from the owner's code, not from us, or the test would only
prove that our spec agrees with our idea of the format. So this script asks the owners'
libraries (pinned in tests/interop-py/requirements.txt) for errors:

- google-rpc: google.rpc.Status messages with standard error details, built with the
  generated classes of googleapis-common-protos and serialized by protobuf's own
  json_format, then put in Google's HTTP JSON mapping ({"error": {...}} with the HTTP
  status read from code.proto's "HTTP Mapping" lines and the code's name as "status");
- problem-details: RFC 9457's own examples (the RFC is the owner; it ships no library);
- jsonrpc-mcp: JSON-RPC error responses as the official MCP Python SDK's (mcp) streamable
  HTTP server writes them (its `_write`, with `"id": null` when the id is unknown), from the
  SDK's own request classifier, its exception-to-wire boundary (a URL-elicitation error, an
  `MCPError`, a handler crash) and its dispatcher's error constants;
- botocore: HTTP error responses of three AWS protocols parsed by botocore's own parsers
  into the `ClientError.response` an AWS SDK user handles;
- dynamodb: DynamoDB's awsJson error responses parsed the same way, with the members of
  the error shape botocore's endpoint adds beside `Error`;
- kubernetes: `metav1.Status` bodies built from the generated client's models and written
  by its `ApiClient().sanitize_for_serialization`;
- odata: the Microsoft REST API Guidelines' error examples read by azure-core's
  `ODataV4Format`;
- oauth: OAuth 2.0 error responses as oauthlib's error classes write them (`.json`);
- stripe: Stripe's error bodies as stripe-python's `handle_error_response` reads them;
- graphql: GraphQL responses as graphql-core writes them (`ExecutionResult.formatted`),
  with Apollo Server's codes in `extensions.code`.

Run with the test venv's Python (see .ci/run):

    tests/interop-py/.venv/bin/python examples/real-taxonomies/payloads.py          # rewrite
    tests/interop-py/.venv/bin/python examples/real-taxonomies/payloads.py --check  # compare

It also writes `<taxonomy>/owner-data.json`: the tables of the owners' code that the specs
restate (code.proto's codes and HTTP mappings, the MCP SDK's HTTP status per code,
botocore's throttling and transient error codes, DynamoDB's operations and the error shapes
each raises, Kubernetes' status reasons and the client's `Status` models, the members
azure-core's `ODataV4Format` reads, oauthlib's error classes, stripe-python's error types and codes), which tests/payloads.rs compares with the
specs. `--check` exits 1 when a committed file differs from what the libraries produce now.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def http_mapping() -> dict[str, int]:
    """code.proto's own "HTTP Mapping: 404 Not Found" lines, by code name."""
    from google.rpc import code_pb2

    proto = (Path(code_pb2.__file__).parent / "code.proto").read_text()
    return {
        name: int(status)
        for status, name in re.findall(r"HTTP Mapping: (\d+)[^\n]*\n\s*([A-Z_]+) = \d+;", proto)
    }


def google_rpc() -> dict[str, Any]:
    from google.protobuf import any_pb2, duration_pb2, json_format
    from google.rpc import code_pb2, error_details_pb2, status_pb2

    http = http_mapping()

    def pack(message: Any) -> any_pb2.Any:
        packed = any_pb2.Any()
        packed.Pack(message)
        return packed

    def google_json(status: status_pb2.Status) -> dict[str, Any]:
        body = json_format.MessageToDict(status)
        name = code_pb2.Code.Name(status.code)
        error: dict[str, Any] = {"code": http[name], "message": body["message"], "status": name}
        if "details" in body:
            error["details"] = body["details"]
        return {"error": error}

    ed = error_details_pb2
    statuses = {
        "not-found-resource-info": status_pb2.Status(
            code=code_pb2.NOT_FOUND,
            message="Book shelves/1/books/7 does not exist.",
            details=[
                pack(ed.ResourceInfo(resource_type="library.googleapis.com/Book", resource_name="shelves/1/books/7", description="The book was never created.")),
                pack(ed.RequestInfo(request_id="f3c2a1", serving_data="opaque")),
            ],
        ),
        "resource-exhausted-quota": status_pb2.Status(
            code=code_pb2.RESOURCE_EXHAUSTED,
            message="Quota exceeded for quota metric 'Read requests' of service 'library.googleapis.com'.",
            details=[
                pack(ed.ErrorInfo(reason="RATE_LIMIT_EXCEEDED", domain="googleapis.com", metadata={"service": "library.googleapis.com", "quota_limit_value": "60"})),
                pack(ed.QuotaFailure(violations=[ed.QuotaFailure.Violation(
                    subject="project:1234", description="Read requests per minute", api_service="library.googleapis.com",
                    quota_metric="library.googleapis.com/read_requests", quota_id="ReadRequestsPerMinutePerProject",
                    quota_dimensions={"region": "us-central1"}, quota_value=60, future_quota_value=120)])),
                pack(ed.RetryInfo(retry_delay=duration_pb2.Duration(seconds=30, nanos=500_000_000))),
                pack(ed.Help(links=[ed.Help.Link(description="Request a higher quota limit.", url="https://cloud.google.com/docs/quotas/help/request_increase")])),
            ],
        ),
        "invalid-argument-bad-request": status_pb2.Status(
            code=code_pb2.INVALID_ARGUMENT,
            message="The request has 2 invalid fields.",
            details=[
                pack(ed.BadRequest(field_violations=[
                    ed.BadRequest.FieldViolation(field="book.title", description="must not be empty", reason="EMPTY"),
                    ed.BadRequest.FieldViolation(field="book.isbn", description="not an ISBN-13", localized_message=ed.LocalizedMessage(locale="fr-FR", message="n'est pas un ISBN-13")),
                ])),
                pack(ed.LocalizedMessage(locale="fr-FR", message="La requête a 2 champs invalides.")),
            ],
        ),
        "failed-precondition-tos": status_pb2.Status(
            code=code_pb2.FAILED_PRECONDITION,
            message="The project has not accepted the terms of service.",
            details=[pack(ed.PreconditionFailure(violations=[ed.PreconditionFailure.Violation(type="TOS", subject="google.com/cloud", description="Terms of service not accepted")]))],
        ),
        "internal-debug-info": status_pb2.Status(
            code=code_pb2.INTERNAL,
            message="Internal error encountered.",
            details=[pack(ed.DebugInfo(stack_entries=["library.Get", "storage.Read"], detail="checksum mismatch"))],
        ),
        "unavailable-no-details": status_pb2.Status(code=code_pb2.UNAVAILABLE, message="The service is currently unavailable."),
    }
    return {name: google_json(status) for name, status in statuses.items()}


def problem_details() -> dict[str, Any]:
    # RFC 9457 section 3, verbatim (the first two differ only by the extension members).
    return {
        "out-of-credit": {
            "type": "https://example.com/probs/out-of-credit",
            "title": "You do not have enough credit.",
            "detail": "Your current balance is 30, but that costs 50.",
            "instance": "/account/12345/msgs/abc",
        },
        "out-of-credit-extensions": {
            "type": "https://example.com/probs/out-of-credit",
            "title": "You do not have enough credit.",
            "detail": "Your current balance is 30, but that costs 50.",
            "instance": "/account/12345/msgs/abc",
            "balance": 30,
            "accounts": ["/account/12345", "/account/67890"],
        },
        "validation-error": {
            "type": "https://example.net/validation-error",
            "title": "Your request is not valid.",
            "errors": [
                {"detail": "must be a positive integer", "pointer": "#/age"},
                {"detail": "must be 'green', 'red' or 'blue'", "pointer": "#/profile/color"},
            ],
        },
        # Section 4.2.1: "about:blank" with the HTTP status phrase as its title.
        "about-blank": {"type": "about:blank", "title": "Not Found", "status": 404},
        # Section 3.1.1: "When this member is not present, its value is assumed to
        # be 'about:blank'." The same problem, as servers that leave `type` out send it.
        "no-type": {"title": "Not Found", "status": 404},
    }


def jsonrpc_mcp() -> dict[str, Any]:
    import anyio
    from mcp.server import _streamable_http_modern as modern
    from mcp.shared import inbound
    from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
    from mcp_types import ElicitRequestURLParams, ErrorData
    from mcp_types import jsonrpc as codes
    from mcp_types._types import ClientCapabilities, MissingRequiredClientCapabilityErrorData
    from mcp_types.jsonrpc import JSONRPCError

    # Every payload is the body the SDK's streamable HTTP server writes: its own
    # `_write` (which puts `"id": null` back when the id is unknown), or its
    # `_write_rejection` for the inbound classifier's rejections, run against a
    # recording ASGI `send`.
    def body(write: Any, *args: Any) -> dict[str, Any]:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        anyio.run(write, *args, {"type": "http"}, receive, send)
        return json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))

    def rejection(result: Any, request_id: Any) -> dict[str, Any]:
        assert isinstance(result, inbound.InboundLadderRejection), result
        return body(modern._write_rejection, result, request_id)

    # A handler that raises `exc`, answered by the SDK's exception-to-wire
    # boundary for request `request_id`.
    # The SDK logs the traceback of a crashing handler; that one is intended.
    def raised(exc: Exception, request_id: Any) -> dict[str, Any]:
        async def handler() -> dict[str, Any]:
            raise exc

        logging.disable(logging.CRITICAL)
        try:
            reply = anyio.run(modern._to_jsonrpc_response, request_id, handler())
        finally:
            logging.disable(logging.NOTSET)
        return body(modern._write, reply)

    def error(data: ErrorData, request_id: Any) -> dict[str, Any]:
        return body(modern._write, JSONRPCError(jsonrpc="2.0", id=request_id, error=data))

    version = inbound.MODERN_PROTOCOL_VERSIONS[-1]
    meta = {inbound.PROTOCOL_VERSION_META_KEY: version, inbound.CLIENT_CAPABILITIES_META_KEY: {}}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    headers = {inbound.MCP_PROTOCOL_VERSION_HEADER: version, inbound.MCP_METHOD_HEADER: "tools/list"}
    return {
        "invalid-params-missing-meta": rejection(inbound.classify_inbound_request(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {}}}), 1),
        "header-mismatch": rejection(inbound.classify_inbound_request(
            request, headers={**headers, inbound.MCP_METHOD_HEADER: "tools/call"}), "req-7"),
        "unsupported-protocol-version": rejection(inbound.unsupported_protocol_version_rejection("2024-11-05"), 2),
        "invalid-request-body": body(modern._write, modern._INVALID_BODY),
        "url-elicitation-required": raised(UrlElicitationRequiredError([ElicitRequestURLParams(
            message="Authorization required for your files", url="https://example.com/oauth/authorize",
            elicitation_id="auth-001")]), "call-42"),
        "missing-required-client-capability": raised(MCPError.from_error_data(ErrorData(
            code=codes.MISSING_REQUIRED_CLIENT_CAPABILITY, message="Missing required client capability",
            data=MissingRequiredClientCapabilityErrorData(required_capabilities=ClientCapabilities.model_validate(
                {"sampling": {}, "roots": {"listChanged": True}})).model_dump(mode="json", by_alias=True, exclude_none=True))), 3),
        "internal-error": raised(RuntimeError("handler internals never reach the wire"), 4),
        "connection-closed": error(ErrorData(code=codes.CONNECTION_CLOSED, message="Connection closed"), 5),
        "method-not-found": error(ErrorData(code=codes.METHOD_NOT_FOUND, message="Method not found"), 6),
    }


def botocore_errors() -> dict[str, Any]:
    from botocore import parsers
    from botocore.exceptions import ClientError
    from botocore.model import ServiceModel
    from botocore.loaders import Loader

    loader = Loader()

    def client_error(service: str, operation: str, status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        model = ServiceModel(loader.load_service_model(service, "service-2"), service_name=service)
        op = model.operation_model(operation)
        parser = parsers.create_parser(model.metadata["protocol"])
        parsed = parser.parse({"status_code": status, "headers": headers, "body": body}, op.output_shape)
        response = ClientError(parsed, operation).response
        response["ResponseMetadata"].pop("HTTPHeaders", None)
        return dict(response)

    return {
        # awsJson1_0: DynamoDB names the error in __type.
        "dynamodb-throughput-exceeded": client_error("dynamodb", "PutItem", 400, {"x-amzn-requestid": "4KBNVRGD25RG"},
            b'{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",'
            b'"message":"The level of configured provisioned throughput for the table was exceeded."}'),
        "dynamodb-throttling": client_error("dynamodb", "GetItem", 400, {"x-amzn-requestid": "7QJ1A0B2"},
            b'{"__type":"com.amazon.coral.availability#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}'),
        # ec2 query protocol: XML with <Errors><Error><Code>.
        "ec2-request-limit-exceeded": client_error("ec2", "DescribeInstances", 503, {},
            b'<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>RequestLimitExceeded</Code>'
            b'<Message>Request limit exceeded.</Message></Error></Errors><RequestID>a7c8e3f1</RequestID></Response>'),
        # rest-xml: S3's SlowDown.
        "s3-slow-down": client_error("s3", "PutObject", 503, {"x-amz-request-id": "4442587FB7D0A2F9"},
            b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>'
            b'<RequestId>4442587FB7D0A2F9</RequestId><HostId>abc</HostId></Error>'),
        "route53-prior-request-not-complete": client_error("route53", "ChangeResourceRecordSets", 400, {"x-amzn-requestid": "9a7b"},
            b'<?xml version="1.0"?>\n<ErrorResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Error><Type>Sender</Type>'
            b'<Code>PriorRequestNotComplete</Code><Message>The request was rejected because Route 53 was still processing a prior request.</Message>'
            b'</Error><RequestId>9a7b</RequestId></ErrorResponse>'),
        "sts-access-denied": client_error("sts", "AssumeRole", 403, {"x-amzn-requestid": "c2b1"},
            b'<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code>'
            b'<Message>User is not authorized to perform: sts:AssumeRole</Message></Error><RequestId>c2b1</RequestId></ErrorResponse>'),
    }


def dynamodb_errors() -> dict[str, Any]:
    """DynamoDB's awsJson error responses as a boto3 user's ClientError.response: botocore's
    parser, then the second pass its Endpoint makes to copy the error shape's own members
    (`Item`, `CancellationReasons`, ...) beside `Error`."""
    from botocore import parsers
    from botocore.endpoint import Endpoint
    from botocore.exceptions import ClientError
    from botocore.loaders import Loader
    from botocore.model import ServiceModel

    model = ServiceModel(Loader().load_service_model("dynamodb", "service-2"), service_name="dynamodb")

    def client_error(operation: str, status: int, shape: str, body: dict[str, Any]) -> dict[str, Any]:
        op = model.operation_model(operation)
        parser = parsers.create_parser(model.metadata["protocol"])
        raw = {"__type": f"com.amazonaws.dynamodb.v20120810#{shape}", **body}
        response_dict = {"status_code": status, "headers": {"x-amzn-requestid": "M2H4S0VRDFC8"},
                         "body": json.dumps(raw).encode()}
        parsed = parser.parse(response_dict, op.output_shape)
        Endpoint._add_modeled_error_fields(None, response_dict, parsed, op, parser)
        response = ClientError(parsed, operation).response
        response["ResponseMetadata"].pop("HTTPHeaders", None)
        return dict(response)

    order = {"pk": {"S": "order#1042"}, "total": {"N": "129.90"}, "lines": {"L": [{"M": {"sku": {"S": "A-7"}, "qty": {"N": "2"}}}]},
             "gift": {"BOOL": False}, "note": {"NULL": True}, "tags": {"SS": ["express", "fragile"]}}
    return {
        "put-item-condition-failed": client_error("PutItem", 400, "ConditionalCheckFailedException",
            {"message": "The conditional request failed", "Item": order}),
        "transact-write-cancelled": client_error("TransactWriteItems", 400, "TransactionCanceledException",
            {"Message": "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]",
             "CancellationReasons": [{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed", "Item": order},
                                     {"Code": "None"}]}),
        "get-item-throughput-exceeded": client_error("GetItem", 400, "ProvisionedThroughputExceededException",
            {"message": "The level of configured provisioned throughput for the table was exceeded.",
             "ThrottlingReasons": [{"reason": "TableReadProvisionedThroughputExceeded",
                                    "resource": "arn:aws:dynamodb:us-east-1:123456789012:table/Orders"}]}),
        "query-throttling": client_error("Query", 400, "ThrottlingException",
            {"message": "Rate of requests exceeds the allowed throughput.",
             "throttlingReasons": [{"reason": "IndexReadKeyRangeThroughputExceeded",
                                    "resource": "arn:aws:dynamodb:us-east-1:123456789012:table/Orders/index/ByCustomer"}]}),
        "describe-table-not-found": client_error("DescribeTable", 400, "ResourceNotFoundException",
            {"message": "Requested resource not found: Table: Orders not found"}),
        "update-item-internal-error": client_error("UpdateItem", 500, "InternalServerError",
            {"message": "Internal server error"}),
        "put-item-replicated-write-conflict": client_error("PutItem", 400, "ReplicatedWriteConflictException",
            {"message": "Replicated write conflict"}),
        "transact-write-idempotent-mismatch": client_error("TransactWriteItems", 400, "IdempotentParameterMismatchException",
            {"Message": "The request uses the same client token as a previous, but non-identical request."}),
    }


def dynamodb_model() -> dict[str, Any]:
    """Each operation's error shapes, and each error shape's `retryable` and members, from
    botocore's DynamoDB service model."""
    from botocore.loaders import Loader
    from botocore.model import ServiceModel

    model = ServiceModel(Loader().load_service_model("dynamodb", "service-2"), service_name="dynamodb")
    operations = {name: [e.name for e in model.operation_model(name).error_shapes] for name in model.operation_names}
    errors = {}
    for name in sorted({e for shapes in operations.values() for e in shapes}):
        shape = model.shape_for(name)
        errors[name] = {"members": list(shape.members), "retryable": shape.metadata.get("retryable")}
    return {"operations": operations, "errors": errors}
def kubernetes_status() -> dict[str, Any]:
    """metav1.Status as the generated client serializes it.

    Each Status is built from the client's own models (`V1Status`,
    `V1StatusDetails`, `V1StatusCause`, `V1ListMeta`) with the messages and
    details the API server writes for its reasons (apimachinery's
    `errors.New*`), and serialized by `ApiClient().sanitize_for_serialization`,
    the client's own JSON writer (it leaves out members that are None).
    """
    from kubernetes.client import ApiClient, V1ListMeta, V1Status, V1StatusCause, V1StatusDetails

    def status(code: int, reason: str | None, message: str, details: V1StatusDetails | None = None) -> dict[str, Any]:
        s = V1Status(api_version="v1", kind="Status", metadata=V1ListMeta(), status="Failure",
                     message=message, reason=reason, details=details, code=code)
        return ApiClient().sanitize_for_serialization(s)

    return {
        "not-found": status(404, "NotFound", 'pods "web-0" not found', V1StatusDetails(name="web-0", kind="pods")),
        "already-exists": status(409, "AlreadyExists", 'configmaps "settings" already exists',
                                 V1StatusDetails(name="settings", kind="configmaps")),
        "conflict": status(409, "Conflict", 'Operation cannot be fulfilled on deployments.apps "api": the object has been '
                           "modified; please apply your changes to the latest version and try again",
                           V1StatusDetails(name="api", group="apps", kind="deployments")),
        "invalid": status(422, "Invalid", 'Pod "web-0" is invalid: spec.containers[0].image: Required value',
                          V1StatusDetails(name="web-0", kind="Pod", causes=[V1StatusCause(
                              reason="FieldValueRequired", message="Required value", field="spec.containers[0].image")])),
        "forbidden": status(403, "Forbidden", 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" '
                            'in the namespace "default"', V1StatusDetails(kind="pods")),
        "too-many-requests": status(429, "TooManyRequests", "Too many requests, please try again later.",
                                    V1StatusDetails(retry_after_seconds=1)),
        "expired": status(410, "Expired", "too old resource version: 1 (2)"),
        "unauthorized": status(401, "Unauthorized", "Unauthorized"),
        # StatusReasonUnknown is the empty string: the client writes it as
        # `"reason": ""`, the API server leaves it out (`omitempty`).
        "unknown-empty-reason": status(500, "", "etcdserver: request timed out"),
        "unknown-no-reason": status(500, None, "etcdserver: request timed out"),
    }


def odata_errors() -> dict[str, Any]:
    """The Microsoft REST API Guidelines' error examples, read by azure-core.

    Each body is the guidelines' own example (section 7.10.2, "Error condition
    responses") or a body an Azure service writes in the same format. azure-core's
    `ODataV4Format` reads it as an Azure SDK does; the payload is what it read
    (`code`, `message`, `target`, `details` recursively, `innererror`), written
    back in the OData JSON format, so a member it does not read would be lost.
    """
    from azure.core.exceptions import ODataV4Format

    def written(error: ODataV4Format) -> dict[str, Any]:
        out: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.target is not None:
            out["target"] = error.target
        if error.details:
            out["details"] = [written(d) for d in error.details]
        if error.innererror:
            out["innererror"] = error.innererror
        return out

    def read(body: dict[str, Any]) -> dict[str, Any]:
        return {"error": written(ODataV4Format(body))}

    return {
        # Guidelines 7.10.2, "Example of innererror".
        "innererror": read({"error": {
            "code": "BadArgument", "message": "Previous passwords may not be reused", "target": "password",
            "innererror": {"code": "PasswordError", "innererror": {
                "code": "PasswordDoesNotMeetPolicy", "minLength": "6", "maxLength": "64",
                "characterTypes": ["lowerCase", "upperCase", "number", "symbol"],
                "minDistinctCharacterTypes": "2", "innererror": {"code": "PasswordReuseNotAllowed"}}}}}),
        # Guidelines 7.10.2, "Example of details".
        "details": read({"error": {
            "code": "BadArgument", "message": "Multiple errors in ContactInfo data", "target": "ContactInfo",
            "details": [
                {"code": "NullValue", "target": "PhoneNumber", "message": "Phone number must not be null"},
                {"code": "NullValue", "target": "LastName", "message": "Last name must not be null"},
                {"code": "MalformedValue", "target": "Address", "message": "Address is not valid"}]}}),
        # ODataV4Format's own docstring example (azure-core 1.32.0).
        "validation-error": read({"error": {
            "code": "ValidationError", "message": "One or more fields contain incorrect values: ",
            "details": [
                {"code": "ValidationError", "target": "representation",
                 "message": "Parsing error(s): String '' does not match regex pattern '^[^{}/ :]+(?: :\\\\d+)?$'. "
                            "Path 'host', line 1, position 297."},
                {"code": "ValidationError", "target": "representation",
                 "message": "Parsing error(s): The input OpenAPI file is not valid for the OpenAPI specificate "
                            "https: //github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md "
                            "(schema https://github.com/OAI/OpenAPI-Specification/blob/master/schemas/v2.0/schema.json)."}]}}),
        "resource-not-found": read({"error": {
            "code": "ResourceNotFound", "message": "The Resource 'Microsoft.Storage/storageAccounts/logs' under resource "
            "group 'rg' was not found.", "target": "logs"}}),
    }


def graphql_responses() -> dict[str, Any]:
    """GraphQL responses as graphql-core writes them (`ExecutionResult.formatted`).

    A small schema is executed by graphql-core's own `graphql_sync`: a syntax
    error, a validation error, resolvers that raise `GraphQLError`s with the
    `extensions.code` Apollo Server gives them (`ApolloServerErrorCode`, and the
    `UNAUTHENTICATED`/`FORBIDDEN` codes of Apollo's documentation) beside partial
    `data`, and a resolver that raises a plain exception, which graphql-core
    writes without `extensions` (Apollo's INTERNAL_SERVER_ERROR). Apollo Server
    adds the parse and validation codes to graphql-core's own errors; the
    second parse and validation payloads are those errors with the code added
    as Apollo does, through graphql-core's `GraphQLError(extensions=...)`.
    """
    from graphql import ExecutionResult, GraphQLError, build_schema, graphql_sync, parse, validate

    schema = build_schema(
        "type Query { book(id: ID!): Book, me: User, books(first: Int!): [Book] }\n"
        "type Book { title: String, price: Float }\n"
        "type User { name: String, email: String }\n"
    )

    class Root:
        @staticmethod
        def book(_info: Any, id: str) -> dict[str, Any]:
            if id != "1":
                raise GraphQLError(f"No book with id {id}", extensions={"code": "BAD_USER_INPUT", "argumentName": "id"})
            return {"title": "Dune", "price": 9.5}

        @staticmethod
        def me(_info: Any) -> Any:
            raise GraphQLError("You must be logged in", extensions={"code": "UNAUTHENTICATED"})

        @staticmethod
        def books(_info: Any, first: int) -> Any:
            raise RuntimeError("connection to the catalogue database was reset")

    def run(query: str) -> dict[str, Any]:
        return graphql_sync(schema, query, root_value=Root).formatted

    def with_code(result: ExecutionResult, code: str) -> dict[str, Any]:
        errors = [GraphQLError(e.message, nodes=e.nodes, source=e.source, positions=e.positions, path=e.path,
                               original_error=e.original_error, extensions={**e.extensions, "code": code})
                  for e in result.errors or []]
        return ExecutionResult(data=result.data, errors=errors).formatted

    syntax = graphql_sync(schema, "{ book(id: 1) { title ")
    document = parse("{ book(id: 1) { titel } }")
    invalid = ExecutionResult(data=None, errors=validate(schema, document))
    forbidden = GraphQLError("Not allowed to read prices", extensions={"code": "FORBIDDEN"})
    return {
        "parse-error": syntax.formatted,
        "parse-error-apollo": with_code(syntax, "GRAPHQL_PARSE_FAILED"),
        "validation-error": invalid.formatted,
        "validation-error-apollo": with_code(invalid, "GRAPHQL_VALIDATION_FAILED"),
        "bad-user-input-partial-data": run('{ a: book(id: "1") { title } b: book(id: "7") { title } }'),
        "two-errors": run('{ me { name } book(id: "9") { title } }'),
        "resolver-crash": run("{ books(first: 2) { title } }"),
        "forbidden": ExecutionResult(data={"book": {"title": "Dune", "price": None}}, errors=[GraphQLError(
            forbidden.message, path=["book", "price"], extensions=forbidden.extensions)]).formatted,
    }


def oauth_errors() -> dict[str, Any]:
    """OAuth 2.0 error responses as oauthlib writes them (an error's `.json`).

    RFC 6749 section 5.2 (token endpoint), RFC 6750 section 3.1 (bearer
    tokens), RFC 7009 section 2.2.1 (revocation) and RFC 8628 section 3.5
    (device authorization: oauthlib 3.2.2 has no class for its codes, so they
    go through its `CustomOAuth2Error`, which writes the same JSON).
    """
    from oauthlib.oauth2.rfc6749 import errors

    def body(error: errors.OAuth2Error) -> dict[str, Any]:
        return json.loads(error.json)

    uri = "https://example.com/docs/oauth-errors"
    return {
        "invalid-request": body(errors.InvalidRequestError(description="Missing grant type parameter.")),
        "invalid-client": body(errors.InvalidClientError()),
        "invalid-grant": body(errors.InvalidGrantError(description="The authorization code has expired.", uri=uri)),
        "unauthorized-client": body(errors.UnauthorizedClientError()),
        "unsupported-grant-type": body(errors.UnsupportedGrantTypeError()),
        "invalid-scope": body(errors.InvalidScopeError(description="Scope 'admin' is not allowed.")),
        "invalid-token": body(errors.InvalidTokenError(description="The access token expired")),
        "insufficient-scope": body(errors.InsufficientScopeError()),
        "unsupported-token-type": body(errors.UnsupportedTokenTypeError()),
        "authorization-pending": body(errors.CustomOAuth2Error("authorization_pending")),
        "slow-down": body(errors.CustomOAuth2Error("slow_down", description="Poll every 10 seconds.")),
        "expired-token": body(errors.CustomOAuth2Error("expired_token")),
        "access-denied": body(errors.AccessDeniedError()),
    }


# The bodies Stripe's API answers, and the HTTP status of each.
STRIPE_BODIES: dict[str, tuple[int, dict[str, Any]]] = {
    "card-declined": (402, {"error": {
        "type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds",
        "message": "Your card has insufficient funds.", "charge": "ch_3Q0",
        "doc_url": "https://stripe.com/docs/error-codes/card-declined",
        "request_log_url": "https://dashboard.stripe.com/test/logs/req_1"}}),
    "expired-card": (402, {"error": {
        "type": "card_error", "code": "expired_card", "param": "exp_month", "message": "Your card has expired.",
        "doc_url": "https://stripe.com/docs/error-codes/expired-card",
        "payment_intent": {"id": "pi_3Q1", "object": "payment_intent", "amount": 2000, "currency": "usd",
                           "status": "requires_payment_method", "last_payment_error": None}}}),
    "resource-missing": (404, {"error": {
        "type": "invalid_request_error", "code": "resource_missing", "param": "id",
        "message": "No such customer: 'cus_nope'", "doc_url": "https://stripe.com/docs/error-codes/resource-missing"}}),
    "parameter-missing": (400, {"error": {
        "type": "invalid_request_error", "code": "parameter_missing", "param": "amount",
        "message": "Missing required param: amount."}}),
    "rate-limit": (429, {"error": {
        "type": "invalid_request_error", "code": "rate_limit",
        "message": "Too many requests hit the API too quickly."}}),
    "invalid-api-key": (401, {"error": {
        "type": "invalid_request_error", "message": "Invalid API Key provided: sk_test_****1234"}}),
    "api-error": (500, {"error": {"type": "api_error", "message": "An unknown error occurred"}}),
    "idempotency-error": (400, {"error": {
        "type": "idempotency_error",
        "message": "Keys for idempotent requests can only be used with the same parameters they were first used with."}}),
    "permission-error": (403, {"error": {
        "type": "invalid_request_error",
        "message": "The provided key 'rk_test_****5678' does not have the required permissions for this endpoint."}}),
}


def stripe_errors() -> dict[str, Any]:
    """Stripe error bodies as stripe-python classifies them.

    Each body goes through the library's own `handle_error_response` (what
    every API call does with a non-2xx answer); the payload is the body the
    raised error holds (`json_body`), and `stripe_readings` records how the
    library read it (its exception class, `code`, `error.type`).
    """
    return {name: reading["json_body"] for name, reading in stripe_readings().items()}


def stripe_readings() -> dict[str, Any]:
    import stripe
    from stripe._api_requestor import _APIRequestor

    requestor = _APIRequestor._global_instance()
    out: dict[str, Any] = {}
    for name, (status, body) in STRIPE_BODIES.items():
        try:
            requestor.handle_error_response(json.dumps(body), status, body, {"request-id": "req_1"}, "V1")
        except stripe.StripeError as e:
            assert e.error is not None
            out[name] = {"class": type(e).__name__, "type": e.error.type, "code": e.error.code,
                         "http_status": e.http_status, "json_body": e.json_body}
    return out


def owner_data() -> dict[str, dict[str, Any]]:
    """Tables of the owners' code that the specs restate, for tests/payloads.rs to compare."""
    import google.rpc.code_pb2 as code_pb2
    from botocore.retries import standard
    from mcp.shared import inbound

    return {
        "google-rpc": {
            "codes": {name: number for name, number in code_pb2.Code.items()},
            "http_mapping": http_mapping(),
        },
        "jsonrpc-mcp": {"http_status": {str(k): v for k, v in inbound.ERROR_CODE_HTTP_STATUS.items()}},
        "botocore": {
            "throttling": standard.ThrottledRetryableChecker._THROTTLED_ERROR_CODES,
            "transient": standard.TransientRetryableChecker._TRANSIENT_ERROR_CODES,
        },
        "dynamodb": dynamodb_model(),
        "kubernetes": kubernetes_owner_data(),
        "odata": odata_owner_data(),
        "oauth": oauth_owner_data(),
        "stripe": stripe_owner_data(),
    }


# k8s.io/apimachinery v0.31.0 (the Kubernetes 1.31 the pinned client 31.0.0 is generated
# for), pkg/apis/meta/v1/types.go: each `StatusReason` constant, its value on the wire and
# the HTTP status its comment gives ("Status code 404"). The Go module is not a Python
# library, so the table is restated here; v0.32.0 adds `StorageReadError` (500).
STATUS_REASONS = {
    "StatusReasonUnknown": ("", 500),
    "StatusReasonUnauthorized": ("Unauthorized", 401),
    "StatusReasonForbidden": ("Forbidden", 403),
    "StatusReasonNotFound": ("NotFound", 404),
    "StatusReasonAlreadyExists": ("AlreadyExists", 409),
    "StatusReasonConflict": ("Conflict", 409),
    "StatusReasonGone": ("Gone", 410),
    "StatusReasonInvalid": ("Invalid", 422),
    "StatusReasonServerTimeout": ("ServerTimeout", 500),
    "StatusReasonTimeout": ("Timeout", 504),
    "StatusReasonTooManyRequests": ("TooManyRequests", 429),
    "StatusReasonBadRequest": ("BadRequest", 400),
    "StatusReasonMethodNotAllowed": ("MethodNotAllowed", 405),
    "StatusReasonNotAcceptable": ("NotAcceptable", 406),
    "StatusReasonRequestEntityTooLarge": ("RequestEntityTooLarge", 413),
    "StatusReasonUnsupportedMediaType": ("UnsupportedMediaType", 415),
    "StatusReasonInternalError": ("InternalError", 500),
    "StatusReasonExpired": ("Expired", 410),
    "StatusReasonServiceUnavailable": ("ServiceUnavailable", 503),
}


def kubernetes_owner_data() -> dict[str, Any]:
    """apimachinery's StatusReason table, and the wire names of the members of the
    client's `V1Status`, `V1StatusDetails`, `V1StatusCause` and `V1ListMeta` models
    (their `attribute_map`)."""
    from kubernetes.client import V1ListMeta, V1Status, V1StatusCause, V1StatusDetails

    return {
        "reasons": {wire: status for wire, status in STATUS_REASONS.values()},
        "members": {model.__name__: sorted(model.attribute_map.values())
                    for model in (V1Status, V1StatusDetails, V1StatusCause, V1ListMeta)},
    }


def odata_owner_data() -> dict[str, Any]:
    """The members of an OData error that azure-core's `ODataV4Format` reads (its
    `*_LABEL`s), of the error object and, recursively, of each entry of `details`."""
    from azure.core.exceptions import ODataV4Format

    return {"labels": {name: getattr(ODataV4Format, name) for name in dir(ODataV4Format)
                       if name.endswith("_LABEL")}}


def oauth_owner_data() -> dict[str, Any]:
    """Each oauthlib error class of the RFCs' codes: its `error` and HTTP status."""
    from oauthlib.oauth2.rfc6749 import errors

    classes = [
        errors.InvalidRequestError, errors.InvalidClientError, errors.InvalidGrantError,
        errors.UnauthorizedClientError, errors.UnsupportedGrantTypeError, errors.InvalidScopeError,
        errors.InvalidTokenError, errors.InsufficientScopeError, errors.UnsupportedTokenTypeError,
        errors.AccessDeniedError,
    ]
    return {"status_code": {c.error: c.status_code for c in classes}}


def stripe_owner_data() -> dict[str, Any]:
    """stripe-python's own lists of error types and codes (the `Literal`s of
    `PaymentIntent.LastPaymentError`, generated from Stripe's OpenAPI spec),
    and how its `handle_error_response` read each payload."""
    import typing

    from stripe._payment_intent import PaymentIntent

    hints = PaymentIntent.LastPaymentError.__annotations__
    code = typing.get_args(hints["code"])[0]
    readings = {name: {k: v for k, v in r.items() if k != "json_body"} for name, r in stripe_readings().items()}
    return {
        "types": list(typing.get_args(hints["type"])),
        "codes": list(typing.get_args(code)),
        "readings": readings,
    }


TAXONOMIES = {
    "google-rpc": google_rpc,
    "problem-details": problem_details,
    "jsonrpc-mcp": jsonrpc_mcp,
    "botocore": botocore_errors,
    "dynamodb": dynamodb_errors,
    "kubernetes": kubernetes_status,
    "odata": odata_errors,
    "graphql": graphql_responses,
    "oauth": oauth_errors,
    "stripe": stripe_errors,
}


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for taxonomy, produce in TAXONOMIES.items():
        out = HERE / taxonomy / "payloads"
        out.mkdir(parents=True, exist_ok=True)
        for name, payload in produce().items():
            path = out / f"{name}.json"
            text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
            if check:
                # Compared as JSON values: protobuf writes map entries
                # (ErrorInfo.metadata) in no fixed order.
                if not path.exists() or json.loads(path.read_text()) != payload:
                    stale.append(str(path.relative_to(HERE.parent.parent)))
            else:
                path.write_text(text)
    for taxonomy, data in owner_data().items():
        path = HERE / taxonomy / "owner-data.json"
        text = json.dumps(data, indent=2) + "\n"
        if check:
            if not path.exists() or json.loads(path.read_text()) != data:
                stale.append(str(path.relative_to(HERE.parent.parent)))
        else:
            path.write_text(text)
    if stale:
        print("stale payloads (the owners' libraries now produce other bytes):", *stale, sep="\n  ", file=sys.stderr)
        print("run `tests/interop-py/.venv/bin/python examples/real-taxonomies/payloads.py` to update", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
