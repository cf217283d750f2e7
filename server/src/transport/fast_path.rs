//! The one message the transport builds itself instead of leaving it to
//! rmcp's parse: a plain `tools/call`, the request every edit is.

use rmcp::RoleServer;
use rmcp::model::JsonRpcMessage;
use rmcp::service::RxJsonRpcMessage;
use serde_json::Value;

/// A `tools/call` request as rmcp's message, built from its JSON by moving
/// its parts, when it has exactly the members rmcp reads into one; anything
/// else comes back as it was, for rmcp's own parse.
///
/// rmcp reads a message as an untagged enum of shapes, and a request as an
/// untagged enum of its 22 kinds, each tried in turn on a buffered copy:
/// `perf` puts that parse at about a tenth of the async workers' user CPU
/// in a small edit (a twentieth of their CPU), the arguments copied twice
/// on the way. Built here, they are not
/// copied at all. What rmcp would make of the same JSON is pinned by
/// `tests::a_call_is_built_as_rmcp_reads_it`.
pub(super) fn call_tool(value: Value) -> Result<RxJsonRpcMessage<RoleServer>, Value> {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, RequestMetaObject};
    let Value::Object(mut obj) = value else {
        return Err(value);
    };
    let plain = obj
        .keys()
        .all(|k| matches!(k.as_str(), "jsonrpc" | "id" | "method" | "params"))
        && obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && obj.get("method").and_then(Value::as_str) == Some("tools/call")
        && obj
            .get("params")
            .and_then(Value::as_object)
            .is_some_and(|p| {
                p.keys()
                    .all(|k| matches!(k.as_str(), "name" | "arguments" | "_meta"))
                    && p.get("name").is_some_and(Value::is_string)
                    && p.get("arguments").is_some_and(Value::is_object)
                    && p.get("_meta").is_none_or(Value::is_object)
            });
    let id = obj
        .get("id")
        .filter(|_| plain)
        .and_then(|id| serde_json::from_value::<rmcp::model::RequestId>(id.clone()).ok());
    let Some(id) = id else {
        return Err(Value::Object(obj));
    };
    let Some(Value::Object(mut params)) = obj.remove("params") else {
        unreachable!("`params` was checked to be an object");
    };
    let (Some(Value::String(name)), Some(Value::Object(arguments))) =
        (params.remove("name"), params.remove("arguments"))
    else {
        unreachable!("`name` and `arguments` were checked");
    };
    let mut call = CallToolRequestParams::new(name);
    call.arguments = Some(arguments);
    let mut request = CallToolRequest::new(call);
    if let Some(Value::Object(meta)) = params.remove("_meta") {
        request.extensions.insert(RequestMetaObject::from(meta));
    }
    Ok(JsonRpcMessage::request(
        ClientRequest::CallToolRequest(request),
        id,
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_call_is_built_as_rmcp_reads_it() {
        let built = [
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "multi_edit", "arguments": {"file_path": "/a", "edits": []}}}),
            json!({"method": "tools/call", "id": "x-1", "jsonrpc": "2.0",
                   "params": {"_meta": {"progressToken": 3}, "arguments": {"k": [1, {"a": null}]},
                              "name": "undo"}}),
            json!({"jsonrpc": "2.0", "id": 1.0, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
        ];
        for v in built {
            let rmcp_reads: RxJsonRpcMessage<RoleServer> =
                serde_json::from_value(v.clone()).unwrap();
            let here = call_tool(v.clone()).unwrap_or_else(|v| panic!("not built: {v}"));
            assert_eq!(
                serde_json::to_value(&here).unwrap(),
                serde_json::to_value(&rmcp_reads).unwrap(),
                "{v}"
            );
            assert_eq!(format!("{here:?}"), format!("{rmcp_reads:?}"), "{v}");
        }
        // Anything else is left to rmcp, untouched.
        let left = [
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}),
            json!({"jsonrpc": "1.0", "id": 7, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": [7], "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "extra": 1,
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}, "requestState": "s"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}, "_meta": 3}}),
        ];
        for v in left {
            assert_eq!(call_tool(v.clone()).unwrap_err(), v);
        }
    }
}
