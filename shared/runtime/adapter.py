"""Turns a server definition (contract specs + bound handlers) into an MCP server.

This module alone validates arguments, runs handlers, builds the envelope, renders the German text,
validates structuredContent against outputSchema, maps errors to `_meta["athaus/code"]`, asks the one
question for a missing input (MRTR or INPUT_REQUIRED) and logs one JSON line per call.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import replace
from typing import Any

import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from mcp.server import Server
from mcp.server.caching import CacheHint
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map
from opentelemetry.trace import INVALID_SPAN
from pydantic import BaseModel, ValidationError

from contract.envelope import Page, PageVisit, Tally, WithMeta
from contract.errors import ERROR_META_KEY, REASON_META_KEY, RETRY_AFTER_META_KEY, ErrorCode, InputNeeded, Question, ToolFailure
from contract.confirmations import MCP_APP_MIME, RESOURCE_DOMAINS_SLOT, SKYBRIDGE_MIME, UI_EXTENSION, UI_EXTENSION_SETTINGS
from contract.primitives import ResourceTemplateSpec
from contract.tool import ToolSpec
from contract.wire import compact_value
from shared.auth.principal import PRINCIPAL_SCOPE_KEY, Principal
from shared.logging import REQUEST_ID
from shared.runtime import envelope
from shared.runtime.context import ProgressReporter, ToolContext
from shared.runtime.definition import COMPLETION_SHOWN, ServerDefinition, template_variables
from shared.runtime.failures import Failure, failure_of, guarded, in_worker, rpc_error
from shared.runtime.limits import ASK_THE_DATABASE, Refusal, UsageLedger, refusal, usage_checks
from shared.runtime.render import render
from shared.runtime.hosts import client_capabilities, opens_pages, shows_card
from shared.runtime.output_check import OutputCheck
from shared.runtime.read_cache import ReadCache, cache_key
from shared.runtime.sessions import DECLARED_SCOPE_KEY
from shared.runtime.validation import declared_text_caps, german_message, unstorable_text
from shared.telemetry.metrics import TOOL_CALLS, TOOL_SECONDS
from shared.telemetry.tracing import caller_fields, tracer, tracing_on

log = logging.getLogger("athaus.calls")

WWW_AUTHENTICATE_META_KEY = "mcp/www_authenticate"

# The contract changes only with a deployment; ten minutes bounds how long a client keeps an old list.
LISTING_TTL = CacheHint(ttl_ms=600_000, scope="public")
# Catalog data may change at any moment without a published cadence: the short floor, not zero (rule 8).
CATALOG_READ_TTL = CacheHint(ttl_ms=60_000, scope="public")


def mcp_tool(spec: ToolSpec) -> types.Tool:
    # The SDK's wire models drop fields the MCP schema does not define, so a top-level
    # `securitySchemes` never reaches the client; `_meta.securitySchemes` carries it.
    meta = {"securitySchemes": spec.security_schemes(), **spec.extra_meta}
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        annotations=types.ToolAnnotations(**spec.annotations.as_mcp()),
        _meta=meta,
    )


def error_result(code: ErrorCode, message: str, **meta: Any) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True, _meta={ERROR_META_KEY: code.value, **meta}
    )


def missing_right(
    spec: ToolSpec | ResourceTemplateSpec, caller: Principal | None, resource_metadata_url: str
) -> types.CallToolResult | None:
    """MISSING_RIGHT with the WWW-Authenticate challenge, so the host can link or widen access; None if allowed."""
    scope = spec.right.scope
    if scope is None or (caller is not None and scope in caller.scopes):
        return None
    challenge = f'Bearer resource_metadata="{resource_metadata_url}", scope="{scope}"'
    if caller is None:
        message = f"{spec.title} braucht eine Anmeldung mit dem Recht „{spec.right.label}“: bitte das Konto verbinden."
    else:
        challenge += ', error="insufficient_scope"'
        message = f"{spec.title} braucht das Recht „{spec.right.label}“, das diese Verbindung nicht hat: bitte den Zugriff erweitern."
    return error_result(ErrorCode.MISSING_RIGHT, message, **{WWW_AUTHENTICATE_META_KEY: challenge})


def _client_can_elicit(meta: Mapping[str, Any] | None) -> bool:
    """Form mode: declared as such, or an empty `elicitation` (the spec reads it as form); a URL-only client gets none."""
    elicitation = client_capabilities(meta).get("elicitation")
    return isinstance(elicitation, Mapping) and (not elicitation or "form" in elicitation)


UNANSWERED = "Die Rückfrage wurde nicht beantwortet, daher ist nichts berechnet worden. {question}"


def _response_to(params: types.CallToolRequestParams, question: Question) -> types.ElicitResult | None:
    """The client's response to exactly this question, if it sent one (answers to other keys are ignored)."""
    response = (params.input_responses or {}).get(f"ask:{question.argument}")
    return response if isinstance(response, types.ElicitResult) else None


def _question_result(question: Question) -> types.InputRequiredResult:
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=question.message,
            requested_schema={"type": "object", "properties": {question.argument: question.schema}, "required": [question.argument]},
        )
    )
    return types.InputRequiredResult(input_requests={f"ask:{question.argument}": request})


def _visit_result(visit: PageVisit) -> types.InputRequiredResult:
    """URL-mode elicitation: the client offers the person Athaus's page; nothing happens until the person acts there.
    No `elicitationId`: 2026-07-28 removed it (the client's retry under the same key says what the person did)."""
    request = types.ElicitRequest(params=types.ElicitRequestURLParams(message=visit.message, url=visit.url))
    return types.InputRequiredResult(input_requests={visit.key: request})


def _page_answers(params: types.CallToolRequestParams) -> dict[str, str]:
    """The client's answers to URL-mode elicitations, by key (accept means only that the person opens the page)."""
    return {key: r.action for key, r in (params.input_responses or {}).items() if isinstance(r, types.ElicitResult)}


class ToolRunner:
    """Executes one contract tool call from raw arguments to a CallToolResult."""

    def __init__(self, definition: ServerDefinition, context: ToolContext) -> None:
        self.definition = definition
        self.context = context
        self.specs = {spec.name: spec for spec in definition.spec.tools}
        self.output_checks = {spec.name: OutputCheck(spec.output_schema()) for spec in definition.spec.tools}
        self.deadline_seconds = context.settings.call_deadline_seconds
        self.budgets = {spec.name: spec.time_budget_seconds or self.deadline_seconds for spec in definition.spec.tools}
        self.text_caps = {spec.name: declared_text_caps(spec.input_model) for spec in definition.spec.tools}
        self.read_cache = ReadCache(context.settings.read_cache_entries) if context.settings.read_cache_entries else None
        self.ledger = UsageLedger(context.db)

    async def call(
        self,
        params: types.CallToolRequestParams,
        meta: Mapping[str, Any] | None,
        caller: Principal | None = None,
        progress: ProgressReporter | None = None,
        declared: Collection[str] = (),
    ) -> types.CallToolResult | types.InputRequiredResult:
        """`declared`: the extensions the client declared at `initialize` (2025-11-25, carried by its session id)."""
        spec = self.specs.get(params.name)
        if spec is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unbekanntes Werkzeug {params.name!r}; tools/list nennt alle.")
        started = time.perf_counter()
        outcome = "OK"
        server = self.definition.spec.name.value
        logged = log.isEnabledFor(logging.INFO)
        # without a tracer provider the span would be a no-op: not made at all (issue 21)
        with tracer.start_as_current_span(f"tool {spec.name}") if tracing_on() else contextlib.nullcontext(INVALID_SPAN) as span:
            recording = span.is_recording()
            # the pseudonyms (two HMACs) only for a reader: a recorded span or the INFO log line
            who = caller_fields(caller.kind, caller.user_id, caller.office_id, caller.client_id) if caller and (logged or recording) else {}
            if recording:
                span.set_attributes({
                    "athaus.server": server, "athaus.tool": spec.name, **{f"athaus.{key}": value for key, value in who.items()},
                    "athaus.request_id": REQUEST_ID.get() or "",
                })
            try:
                result = missing_right(
                    spec, caller, self.context.settings.resource_metadata_url(server)
                ) or await self._limited(spec, caller) or await self._run(
                    spec,
                    params,
                    meta,
                    replace(
                        self.context, caller=caller, progress=progress, app_host=shows_card(meta, declared, caller), opens_pages=opens_pages(meta),
                        page_answers=_page_answers(params),
                    ),
                )
                if isinstance(result, types.CallToolResult) and result.is_error:
                    outcome = (result.meta or {}).get(ERROR_META_KEY, "ERROR")
                elif isinstance(result, types.InputRequiredResult):
                    outcome = "INPUT_REQUIRED"
                return result
            except BaseException:
                outcome = "INTERNAL"
                raise
            finally:
                seconds = time.perf_counter() - started
                span.set_attribute("athaus.outcome", outcome)
                TOOL_CALLS.labels(server, spec.name, outcome).inc()
                TOOL_SECONDS.labels(server, spec.name).observe(seconds)
                if logged:
                    line = {"event": "tool_call", "server": server, "tool": spec.name, "outcome": outcome}
                    log.info(json.dumps({**line, "duration_ms": round(seconds * 1000, 2), **who}))

    async def _limited(self, spec: ToolSpec, caller: Principal | None) -> types.CallToolResult | None:
        """RATE_LIMITED with the seconds to wait when the caller is over a limit on use (shared/runtime/limits.py)."""
        checks = usage_checks(self.context.settings, spec, caller) if caller is not None else []
        if not checks:
            return None
        now = self.context.now()
        refused = self.ledger.admit(checks, now)  # from the leases this process holds: no database, no thread
        if refused is ASK_THE_DATABASE:
            refused = await in_worker(self.deadline_seconds, self.ledger.charge, checks, now)
        if not isinstance(refused, Refusal):
            return None
        return error_result(ErrorCode.RATE_LIMITED, refusal(spec, refused), **{RETRY_AFTER_META_KEY: refused.wait})

    async def _run(
        self, spec: ToolSpec, params: types.CallToolRequestParams, meta: Mapping[str, Any] | None, context: ToolContext
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run the handler; when it asks a question the client already answered, run it once more with the answer.

        An answer fills only the argument the handler asks for, and only when the handler asks: what the caller
        sent is never overridden by an answer to a question that was not asked. A declined or cancelled
        question ends in one INPUT_REQUIRED error, not in the same question again."""
        arguments = dict(params.arguments or {})
        try:
            try:
                return await self._execute(spec, arguments, context)
            except InputNeeded as needed:
                response = _response_to(params, needed.question)
                if response is None:
                    raise
                answer = (response.content or {}).get(needed.question.argument) if response.action == "accept" else None
                if answer is None:
                    return error_result(ErrorCode.INPUT_REQUIRED, UNANSWERED.format(question=needed.question.message))
                return await self._execute(spec, {**arguments, needed.question.argument: answer}, context)
        except InputNeeded as needed:
            if _client_can_elicit(meta) and _response_to(params, needed.question) is None:
                return _question_result(needed.question)
            return error_result(ErrorCode.INPUT_REQUIRED, needed.question.message)
        except Exception as error:
            failure = failure_of(error, self.budgets[spec.name])
            return error_result(failure.code, failure.message, **({REASON_META_KEY: failure.reason} if failure.reason else {}))

    async def _execute(
        self, spec: ToolSpec, arguments: dict[str, Any], context: ToolContext
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Validate, run the handler under the call's deadline, build and check the result; raises what the handler raises.
        A result that offers a page becomes that page's URL-mode elicitation where the client opens pages."""
        unstorable = unstorable_text("", arguments, self.text_caps[spec.name])
        if unstorable:
            return error_result(ErrorCode.INVALID_ARGUMENT, unstorable)
        try:
            args = spec.input_model.model_validate(arguments)
        except ValidationError as invalid:
            return error_result(ErrorCode.INVALID_ARGUMENT, german_message(invalid))
        cached = self.read_cache is not None and spec.name in self.definition.public_reads
        key = cache_key(spec.name, arguments) if cached else None
        handler = self.definition.handlers[spec.name]
        if key is None:
            return self._finish(spec, await in_worker(self.budgets[spec.name], handler, args, context), context)
        revision_of = self.definition.catalog_revision
        assert revision_of is not None  # ServerDefinition checks it
        cache = self.read_cache
        assert cache is not None

        def kept_or_made() -> tuple[int, dt.datetime, types.CallToolResult | None, Any]:
            """In one trip to a worker thread: the revision, then the kept answer, or else the handler's output."""
            catalog, now = revision_of(context), context.now()
            kept = cache.get(key, catalog.revision, now)
            return catalog.revision, now, kept, (None if kept is not None else handler(args, replace(context, catalog=catalog)))

        revision, now, kept, raw = await in_worker(self.budgets[spec.name], kept_or_made)
        if kept is not None:
            return kept
        result = self._finish(spec, raw, context)
        if isinstance(result, types.CallToolResult) and not result.is_error and result.meta is None:
            cache.put(key, revision, now, result)
        return result

    def _finish(self, spec: ToolSpec, raw: Any, context: ToolContext) -> types.CallToolResult | types.InputRequiredResult:
        """The result of a handler's output: envelope, checked structuredContent, German text (or the page to visit)."""
        meta: dict[str, Any] | None = None
        if isinstance(raw, WithMeta):
            if raw.visit is not None and context.opens_pages:
                return _visit_result(raw.visit)
            meta, raw = (raw.meta or None), raw.output
        output = envelope.build(raw, spec.output_model) if isinstance(raw, Page | Tally) else raw
        if not isinstance(output, spec.output_model):
            raise TypeError(f"{spec.name} returned {type(output).__name__}, contract says {spec.output_model.__name__}")
        structured = compact_value(output)
        problem = self.output_checks[spec.name].problem(structured)
        if problem is not None:
            raise TypeError(f"{spec.name}: structuredContent breaks outputSchema: {problem}")
        # The connector tools (search, fetch) answer in ChatGPT's shape: their one text is the result as JSON.
        text = json.dumps(structured, ensure_ascii=False) if spec.json_text else render(output, spec.input_model)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured, _meta=meta)


def build_server(definition: ServerDefinition, context: ToolContext, version: str) -> Server[Any]:
    """The low-level MCP server for one definition; every request handler is derived from the contract."""
    runner = ToolRunner(definition, context)
    seconds = context.settings.call_deadline_seconds
    server = definition.spec
    tools = [mcp_tool(spec) for spec in server.tools]
    templates = [
        types.ResourceTemplate(name=r.name, title=r.title, uri_template=r.uri_template, description=r.description, mime_type=r.mime_type)
        for r in server.resources
    ]
    prompts = [
        types.Prompt(
            name=p.name,
            title=p.title,
            description=p.description,
            arguments=[types.PromptArgument(name=a.name, description=a.description, required=a.required) for a in p.arguments],
        )
        for p in server.prompts
    ]
    prompts_by_name = {p.name: p for p in server.prompts}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
        meta = ctx.meta.model_dump(by_alias=True) if isinstance(ctx.meta, BaseModel) else ctx.meta
        return await runner.call(params, meta, caller_of(ctx), progress_reporter(ctx), declared_of(ctx))

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    apps = {uri: app for app in server.apps for uri in (app.uri, app.chatgpt_uri)}
    domain = context.settings.public_url.rstrip("/")
    app_resources = [
        resource
        for app in server.apps
        for resource in (
            types.Resource(uri=app.uri, name=app.name, title=app.title, description=app.description, mime_type=MCP_APP_MIME, _meta={"ui": app.ui_meta(domain)}),
            types.Resource(
                uri=app.chatgpt_uri, name=f"{app.name}-chatgpt", title=app.title, description=app.description, mime_type=SKYBRIDGE_MIME, _meta=app.skybridge_meta(domain)
            ),
        )
    ]

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        # Listings are reached through the template; a catalog of thousands is no resource list. The card is listed.
        return types.ListResourcesResult(resources=app_resources)

    def read_app(uri: str) -> types.ReadResourceResult:
        """One content per URI (a host takes exactly one): the MCP App, or the same HTML in the Apps SDK form."""
        app = apps[uri]
        html = definition.app_html[app.uri]().replace(RESOURCE_DOMAINS_SLOT, json.dumps(app.resource_domains(domain)), 1)
        if uri == app.uri:
            content = types.TextResourceContents(uri=uri, mime_type=MCP_APP_MIME, text=html, _meta={"ui": app.ui_meta(domain)})
        else:
            content = types.TextResourceContents(uri=uri, mime_type=SKYBRIDGE_MIME, text=html, _meta=app.skybridge_meta(domain))
        return types.ReadResourceResult(contents=[content])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) in apps:
            return read_app(str(params.uri))
        for resource in server.resources:
            variables = template_variables(resource, str(params.uri))
            if variables is None:
                continue
            caller = caller_of(ctx)
            denied = missing_right(resource, caller, context.settings.resource_metadata_url(server.name.value))
            if denied is not None:
                raise MCPError(code=types.INVALID_REQUEST, message=denied.content[0].text, data=denied.meta)
            _refuse_unstorable(variables)
            model = await guarded(seconds, definition.readers[resource.name], variables, replace(context, caller=caller))
            contents = [
                types.TextResourceContents(uri=params.uri, mime_type="text/markdown", text=render(model)),
                types.TextResourceContents(uri=params.uri, mime_type="application/json", text=json.dumps(compact_value(model), ensure_ascii=False)),
            ]
            if resource.right.scope is None:
                return types.ReadResourceResult(contents=contents)
            # Account data depends on the caller: never shared between authorization contexts (rule 8).
            return types.ReadResourceResult(contents=contents, ttl_ms=CATALOG_READ_TTL.ttl_ms, cache_scope="private")
        raise MCPError(code=types.INVALID_PARAMS, message=f"Keine Ressource unter {params.uri}; resources/templates/list nennt die Adressen.")

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        prompt = prompts_by_name.get(params.name)
        if prompt is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unbekannter Prompt {params.name!r}; prompts/list nennt alle.")
        arguments = params.arguments or {}
        _refuse_unstorable(arguments)
        missing = [a.name for a in prompt.arguments if a.required and not arguments.get(a.name)]
        if missing:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Für diesen Prompt fehlt das Argument {missing[0]}.")
        text = await guarded(seconds, definition.prompts[prompt.name], arguments, context)
        return types.GetPromptResult(
            description=prompt.title,
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
        )

    async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        _refuse_unstorable({params.argument.name: params.argument.value})
        if params.context is not None:
            _refuse_unstorable(params.context.arguments or {})
        source = _completion_source(definition, params)
        if source is None:
            return types.CompleteResult(completion=types.Completion(values=[], total=0, has_more=False))
        try:
            # one value more than is shown tells whether there are more; `total` is known only without more
            values = await guarded(
                seconds, definition.completers[source], params.argument.value, replace(context, caller=caller_of(ctx)), COMPLETION_SHOWN + 1
            )
        except MCPError as error:  # a completion from account data without a login completes nothing
            if (error.error.data or {}).get(ERROR_META_KEY) != ErrorCode.MISSING_RIGHT.value:
                raise
            values = []
        more = len(values) > COMPLETION_SHOWN
        shown = values[:COMPLETION_SHOWN]
        return types.CompleteResult(completion=types.Completion(values=shown, total=None if more else len(shown), has_more=more))

    handlers: dict[str, Callable[..., Awaitable[Any]]] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if server.resources or server.apps:
        handlers |= {"on_list_resource_templates": list_templates, "on_list_resources": list_resources, "on_read_resource": read_resource}
    if server.prompts:
        handlers |= {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}
    if definition.completers:
        handlers["on_completion"] = complete
    handlers = {key: _mapped(handler, seconds) for key, handler in handlers.items()}
    mcp_server = Server(
        server.name.value,
        version=version,
        title=server.title,
        instructions=server.instructions,
        cache_hints={
            "tools/list": LISTING_TTL,
            "prompts/list": LISTING_TTL,
            "resources/list": LISTING_TTL,
            "resources/templates/list": LISTING_TTL,
            "resources/read": CATALOG_READ_TTL,
        },
        # The SDK checks a call's Mcp-Param-* headers against the tool's input schema; without this lookup it runs the
        # whole tools/list handler and serialises every tool on each call (a third of the event loop's time under load).
        get_tool_input_schema={tool.name: tool.input_schema for tool in tools if declares_param_headers(tool.input_schema)}.get,
        **handlers,
    )
    if server.apps:  # the card is an MCP App: both eras see the extension in the server's capabilities
        mcp_server.extensions[UI_EXTENSION] = dict(UI_EXTENSION_SETTINGS)
        mcp_server.middleware.append(stating_extensions(mcp_server.extensions))
    return mcp_server


def stating_extensions(extensions: Mapping[str, dict[str, Any]]) -> Callable[..., Awaitable[Any]]:
    """A server middleware that states `extensions` in the 2025-11-25 `initialize` result as well. The SDK answers
    `initialize` in that revision's schema, which lists no `extensions`, and drops them; the revision's capabilities are
    "not a closed set" (any server may state its own), and MCP Apps hosts and the TypeScript SDK read them from
    `capabilities.extensions` in either revision (2026-07-28 states them in `server/discover` by itself)."""

    async def stating(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        result = await call_next(ctx)
        capabilities = result.get("capabilities") if ctx.method == "initialize" and isinstance(result, dict) else None
        if isinstance(capabilities, dict) and "extensions" not in capabilities:
            capabilities["extensions"] = {name: dict(settings) for name, settings in extensions.items()}
        return result

    return stating


def declares_param_headers(input_schema: Mapping[str, Any]) -> bool:
    """Whether the SDK's Mcp-Param-* check has anything to compare for this schema. Without a valid `x-mcp-header`
    annotation it accepts every call, yet walks the whole schema twice on each one to find that out (issue 21: a
    tenth of a cached search's CPU): such a tool's schema is not handed to it, which skips the check it would pass."""
    return find_invalid_x_mcp_header(input_schema) is None and bool(x_mcp_header_map(input_schema))


def _refuse_unstorable(arguments: Mapping[str, Any]) -> None:
    """INVALID_ARGUMENT for a string no database can store or no real value is as long as (one check for all methods)."""
    unstorable = unstorable_text("", dict(arguments))
    if unstorable:
        raise rpc_error(Failure(ErrorCode.INVALID_ARGUMENT, unstorable))


def _mapped(handler: Callable[..., Awaitable[Any]], seconds: float) -> Callable[..., Awaitable[Any]]:
    """The request handler with every failure mapped like a tool call's: a code and a German sentence, never a trace."""

    async def mapped(ctx: Any, params: Any) -> Any:
        try:
            return await handler(ctx, params)
        except MCPError:
            raise
        except Exception as error:
            raise rpc_error(failure_of(error, seconds)) from None

    return mapped


def progress_reporter(ctx: Any) -> ProgressReporter | None:
    """A reporter a handler calls from its worker thread; it sends `notifications/progress` for this request when
    the client sent a progressToken (the SDK's report_progress is a no-op otherwise). A failed notification is
    logged and never fails the call."""
    # the SDK hands handlers a ServerRequestContext whose session is scoped to this request
    report = getattr(getattr(ctx, "session", None), "report_progress", None) or getattr(ctx, "report_progress", None)
    if report is None:
        return None

    def send(done: float, total: float | None, message: str | None) -> None:
        try:
            anyio.from_thread.run(report, done, total, message)
        except Exception:  # a client gone away must not end the work it started
            log.warning("progress notification not sent", exc_info=True)

    return send


def declared_of(ctx: Any) -> frozenset[str]:
    """The extensions the client declared at `initialize` (2025-11-25), carried by its session id (sessions.py)."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None) or {}
    return scope.get(DECLARED_SCOPE_KEY) or frozenset()


def caller_of(ctx: Any) -> Principal | None:
    """The principal the resource-server middleware resolved for this HTTP request, if any."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None) or {}
    return scope.get(PRINCIPAL_SCOPE_KEY)


def _completion_source(definition: ServerDefinition, params: types.CompleteRequestParams) -> str | None:
    """The completer of the argument `params` names, or None when it has none (nothing to complete). A prompt or template
    the server does not offer, or an argument it does not have, is the caller's mistake: INVALID_PARAMS."""
    ref, name = params.ref, params.argument.name
    if isinstance(ref, types.PromptReference):
        prompt = next((p for p in definition.spec.prompts if p.name == ref.name), None)
        if prompt is None:
            raise _unknown_reference(f"Einen Prompt {ref.name!r} gibt es hier nicht", [p.name for p in definition.spec.prompts])
        argument = next((a for a in prompt.arguments if a.name == name), None)
        if argument is None:
            raise _unknown_reference(f"Der Prompt {prompt.name} hat kein Argument {name!r}", [a.name for a in prompt.arguments])
        return argument.completes_from
    resource = next((r for r in definition.spec.resources if r.uri_template == ref.uri), None)
    if resource is None:
        raise _unknown_reference("Diese Ressourcenvorlage gibt es hier nicht", [r.uri_template for r in definition.spec.resources])
    variables = re.findall(r"{(\w+)}", resource.uri_template)
    if name not in variables:
        raise _unknown_reference(f"Die Vorlage {resource.uri_template} hat keine Variable {name!r}", variables)
    source = f"{resource.name}.{name}"
    return source if source in definition.completers else None


def _unknown_reference(what: str, known: list[str]) -> MCPError:
    offered = ", ".join(known) if known else "keine"
    return rpc_error(Failure(ErrorCode.INVALID_ARGUMENT, f"{what}; bitte eine der angebotenen nehmen: {offered}."))
