import { parseJson } from '@sluice/contract/parse-json';
import { readRecord, readString } from './read-record.js';
import {
  allowedToolsChoice,
  customTool,
  functionTool,
  invalidRequest,
  namedChoice,
  namespaceTool,
  readAs,
  responsesOnly,
  type ResponsesRequest,
} from './responses-schema.js';

/**
 * Tools: the Responses API's function tools become the hub's function tools. Two more kinds are
 * translated by convention, so that Codex CLI's requests go through any channel:
 *
 * - A **custom (freeform) tool** (`type: 'custom'`, Codex's `apply_patch`) is offered to the model as
 *   a function whose parameters are one string property, `input` (`CUSTOM_TOOL_INPUT`); its grammar,
 *   if any, is in that property's description. The model's call comes back as a `custom_tool_call`
 *   item whose `input` is that string (or the raw arguments when they are not such an object), and a
 *   `custom_tool_call` in the history goes upstream as a call with `{"input": …}`.
 * - A **namespace** (`type: 'namespace'`) is flattened: each of its tools is a function named
 *   `<namespace>__<name>`, and calls come back as items with `namespace` and `name` apart.
 *
 * Hosted web search (`web_search`, `web_search_preview` and their dated names) is dropped: Codex CLI
 * offers it by default, and a model without it answers from what it knows. It is refused only when
 * `tool_choice` demands it. Every other built-in tool is the client's 400, naming its type.
 */
export const CUSTOM_TOOL_INPUT = 'input';

const NAMESPACE_SEPARATOR = '__';

export interface HubTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: Record<string, unknown>;
    readonly strict?: boolean;
  };
}

/** What a hub function name stands for, when it is not a plain function tool of the same name. */
export interface ToolKind {
  readonly name: string;
  readonly namespace?: string;
  readonly custom: boolean;
}

/** The hub's name of a tool: `<namespace>__<name>` inside a namespace, else the name. */
export const hubToolName = (name: string, namespace?: string | null): string =>
  namespace ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;

/** Hosted web search: dropped when offered, refused when demanded. */
export const isDroppedToolType = (type: string): boolean => type.startsWith('web_search');

const CUSTOM_NOTE = `Pass the raw input text as the string field \`${CUSTOM_TOOL_INPUT}\`.`;

const customParameters = (
  format: { type: string; syntax?: string; definition?: string } | null | undefined,
) => ({
  type: 'object',
  properties: {
    [CUSTOM_TOOL_INPUT]: {
      type: 'string',
      description:
        format?.type === 'grammar' && format.definition
          ? `The raw input text. It must follow this ${format.syntax ?? ''} grammar:\n${format.definition}`
          : 'The raw input text.',
    },
  },
  required: [CUSTOM_TOOL_INPUT],
  additionalProperties: false,
});

const builtInRefused = (path: string, type: string) =>
  responsesOnly(
    `${path}: the built-in tool '${type}' needs an upstream that serves the Responses API itself; ` +
      'through this channel only function and custom tools are available',
  );

/** One Responses tool into `out` (a namespace adds each of its tools). */
const addTool = (
  tool: { type: string },
  path: string,
  namespace: string | undefined,
  out: HubTool[],
): void => {
  switch (tool.type) {
    case 'function': {
      const read = readAs(functionTool, tool, path);
      out.push({
        type: 'function',
        function: {
          name: hubToolName(read.name, namespace),
          ...(read.description ? { description: read.description } : {}),
          ...(read.parameters ? { parameters: read.parameters } : {}),
          ...(typeof read.strict === 'boolean' ? { strict: read.strict } : {}),
        },
      });
      return;
    }
    case 'custom': {
      const read = readAs(customTool, tool, path);
      out.push({
        type: 'function',
        function: {
          name: hubToolName(read.name, namespace),
          description: read.description ? `${read.description}\n\n${CUSTOM_NOTE}` : CUSTOM_NOTE,
          parameters: customParameters(read.format),
        },
      });
      return;
    }
    case 'namespace': {
      if (namespace !== undefined) throw invalidRequest(`${path}: a namespace cannot hold another namespace`);
      const read = readAs(namespaceTool, tool, path);
      read.tools.forEach((inner, index) => {
        if (inner.type !== 'function' && inner.type !== 'custom')
          throw invalidRequest(
            `${path}.tools.${index}.type: a namespace holds function and custom tools only`,
          );
        addTool(inner, `${path}.tools.${index}`, read.name, out);
      });
      return;
    }
    default:
      if (isDroppedToolType(tool.type) && namespace === undefined) return;
      throw builtInRefused(`${path}.type`, tool.type);
  }
};

/** The hub's tools of a list of Responses tools (`path` names the list in errors). */
export const hubToolsOf = (tools: readonly { type: string }[], path: string): HubTool[] => {
  const out: HubTool[] = [];
  tools.forEach((tool, index) => addTool(tool, `${path}.${index}`, undefined, out));
  return out;
};

export interface HubToolChoice {
  readonly tools: readonly HubTool[];
  readonly choice?: unknown;
}

const named = (tools: readonly HubTool[], name: string, path: string) => {
  if (!tools.some((tool) => tool.function.name === name))
    throw invalidRequest(`${path}: no function or custom tool named '${name}' is offered`);
  return { type: 'function', function: { name } };
};

/**
 * `tool_choice` for the hub, with the tools it leaves: a named function or custom tool, a mode, or
 * `allowed_tools` (the hub gets only the allowed tools, and its mode). A choice of a built-in tool is
 * the client's 400.
 */
export const hubToolChoiceOf = (
  choice: ResponsesRequest['tool_choice'],
  tools: readonly HubTool[],
  searchDropped: boolean,
): HubToolChoice => {
  if (choice === undefined || choice === null) return { tools };
  if (typeof choice === 'string') {
    if (choice === 'required' && tools.length === 0) {
      if (searchDropped)
        throw responsesOnly("tool_choice: 'required', but only hosted web search is offered");
      throw invalidRequest("tool_choice: 'required' needs a tool to call");
    }
    return { tools, choice };
  }
  switch (choice.type) {
    case 'function':
    case 'custom': {
      const read = readAs(namedChoice, choice, 'tool_choice');
      const name = hubToolName(read.name, readString(read['namespace']));
      return { tools, choice: named(tools, name, 'tool_choice.name') };
    }
    case 'allowed_tools': {
      const read = readAs(allowedToolsChoice, choice, 'tool_choice');
      const allowed = new Set<string>();
      read.tools.forEach((tool, index) => {
        if (tool.type === 'function' || tool.type === 'custom') {
          if (tool.name) allowed.add(hubToolName(tool.name, readString(tool['namespace'])));
        } else if (!isDroppedToolType(tool.type))
          throw builtInRefused(`tool_choice.tools.${index}.type`, tool.type);
      });
      const kept = tools.filter((tool) => allowed.has(tool.function.name));
      if (kept.length === 0 && read.mode === 'required') {
        if (read.tools.length > 0 && allowed.size === 0)
          throw responsesOnly('tool_choice: only hosted web search is allowed, and a call is required');
        throw invalidRequest('tool_choice.tools: none of the allowed tools is offered');
      }
      return { tools: kept, ...(kept.length > 0 ? { choice: read.mode } : {}) };
    }
    default:
      throw builtInRefused('tool_choice.type', choice.type);
  }
};

/**
 * The hub names that stand for custom or namespaced tools in a request (the client's body, already
 * read by `toHub`): what an answer needs to write calls back as the client offered them.
 */
export const toolKindsOf = (request: Readonly<Record<string, unknown>>): ReadonlyMap<string, ToolKind> => {
  const kinds = new Map<string, ToolKind>();
  const visit = (tools: unknown, namespace?: string): void => {
    if (!Array.isArray(tools)) return;
    for (const value of tools) {
      const tool = readRecord(value);
      const name = readString(tool?.['name']);
      if (!tool || name === undefined) continue;
      if (tool['type'] === 'namespace' && namespace === undefined) visit(tool['tools'], name);
      else if (tool['type'] === 'custom' || (tool['type'] === 'function' && namespace !== undefined))
        kinds.set(hubToolName(name, namespace), {
          name,
          ...(namespace !== undefined ? { namespace } : {}),
          custom: tool['type'] === 'custom',
        });
    }
  };
  visit(request['tools']);
  const input = request['input'];
  if (Array.isArray(input))
    for (const item of input) {
      const record = readRecord(item);
      if (record?.['type'] === 'additional_tools') visit(record['tools']);
    }
  return kinds;
};

/** A custom tool's input from the hub's arguments: `{"input": "…"}`'s string, else the raw text. */
export const customInputOf = (args: string): string => {
  const parsed = parseJson(args);
  const input = readRecord(parsed)?.[CUSTOM_TOOL_INPUT];
  if (typeof input === 'string') return input;
  return typeof parsed === 'string' ? parsed : args;
};
