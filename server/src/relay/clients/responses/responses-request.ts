import { inputToMessages } from './responses-input.js';
import {
  invalidRequest,
  readAs,
  responsesRequest,
  responsesOnly,
  type ResponsesRequest,
} from './responses-schema.js';
import { hubToolChoiceOf, hubToolsOf, isDroppedToolType } from './responses-tools.js';

/**
 * A Responses API request into the hub's form (an OpenAI chat completions body). Sluice is
 * stateless here: what needs stored responses, conversations or prompts is the client's 400, and
 * every answer says `store: false`. Accepted and ignored: `include` (no value is honoured: there is
 * no encrypted reasoning, no logprobs, no hosted tool output to include), `metadata` (echoed in the
 * answer), `text.verbosity`, `reasoning.summary`, `service_tier`, `prompt_cache_key`, `truncation`,
 * `max_tool_calls` and `stream_options`.
 */

/** The fields only an upstream that keeps state could honour, with why each is refused. */
const STATEFUL: readonly {
  readonly field: string;
  readonly set: (body: Readonly<Record<string, unknown>>) => boolean;
  readonly why: string;
}[] = [
  {
    field: 'previous_response_id',
    set: (body) => typeof body['previous_response_id'] === 'string' && body['previous_response_id'] !== '',
    why: 'Sluice keeps no responses (every answer says store: false); send the whole conversation in input',
  },
  {
    field: 'conversation',
    set: (body) => body['conversation'] !== undefined && body['conversation'] !== null,
    why: 'Sluice keeps no conversations; send the whole conversation in input',
  },
  {
    field: 'store',
    set: (body) => body['store'] === true,
    why: 'Sluice keeps no responses; send store: false or leave it out',
  },
  {
    field: 'background',
    set: (body) => body['background'] === true,
    why: 'Sluice keeps no responses to poll; ask without background',
  },
  {
    field: 'prompt',
    set: (body) => body['prompt'] !== undefined && body['prompt'] !== null,
    why: 'stored prompts live at OpenAI; send the instructions and input themselves',
  },
];

/** The first stateful field the body sets, or undefined. */
export const statefulFieldOf = (body: Readonly<Record<string, unknown>>): string | undefined =>
  STATEFUL.find((rule) => rule.set(body))?.field;

const refuseStateful = (body: Readonly<Record<string, unknown>>): void => {
  const rule = STATEFUL.find((candidate) => candidate.set(body));
  if (rule) throw responsesOnly(`${rule.field}: ${rule.why}`);
};

/** `text.format` as the hub's `response_format` (`text`: none). */
const responseFormatOf = (text: ResponsesRequest['text']): unknown => {
  const format = text?.format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (!format.name) throw invalidRequest('text.format.name: required for json_schema');
  if (!format.schema) throw invalidRequest('text.format.schema: required for json_schema');
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      ...(format.description ? { description: format.description } : {}),
      schema: format.schema,
      ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
    },
  };
};

/**
 * `reasoning.effort` as the hub's `reasoning_effort`, in the values every provider knows: `minimal`
 * is `low`, `xhigh` is `high`; `none`, or an effort this table does not know, is left out (the
 * model's default).
 */
const EFFORTS: ReadonlyMap<string, string> = new Map([
  ['minimal', 'low'],
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['xhigh', 'high'],
]);

/** Reads a Responses API body into the hub's chat body; a body it cannot take is the client's 400. */
export const responsesToHub = (body: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  refuseStateful(body);
  const request = readAs(responsesRequest, body, '');
  const { messages, extraTools } = inputToMessages(request.input);
  if (request.instructions) messages.unshift({ role: 'system', content: request.instructions });
  if (messages.length === 0) throw invalidRequest('input: give at least one message');

  const offered = [
    ...hubToolsOf(request.tools ?? [], 'tools'),
    ...extraTools.flatMap((extra) => hubToolsOf(extra.tools, extra.path)),
  ];
  const searchDropped = [...(request.tools ?? []), ...extraTools.flatMap((extra) => extra.tools)].some(
    (tool) => isDroppedToolType(tool.type),
  );
  const { tools, choice } = hubToolChoiceOf(request.tool_choice, offered, searchDropped);
  const hub: Record<string, unknown> = { model: request.model, messages };
  if (tools.length > 0) {
    hub['tools'] = tools;
    if (choice !== undefined) hub['tool_choice'] = choice;
    if (typeof request.parallel_tool_calls === 'boolean')
      hub['parallel_tool_calls'] = request.parallel_tool_calls;
  }
  const responseFormat = responseFormatOf(request.text);
  if (responseFormat) hub['response_format'] = responseFormat;
  const effort = request.reasoning?.effort ? EFFORTS.get(request.reasoning.effort) : undefined;
  if (effort) hub['reasoning_effort'] = effort;
  if (typeof request.max_output_tokens === 'number') hub['max_tokens'] = request.max_output_tokens;
  if (typeof request.temperature === 'number') hub['temperature'] = request.temperature;
  if (typeof request.top_p === 'number') hub['top_p'] = request.top_p;
  const user = request.user ?? request.safety_identifier;
  if (user) hub['user'] = user;
  if (request.stream === true) {
    hub['stream'] = true;
    hub['stream_options'] = { include_usage: true };
  }
  return hub;
};
