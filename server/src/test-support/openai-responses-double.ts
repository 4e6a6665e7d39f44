import type { ServerResponse } from 'node:http';

/** What the OpenAI double answers with: its reply text and usage (undefined: none reported). */
export interface ResponsesState {
  readonly reply: string;
  readonly usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } | undefined;
}

/** A Response object as OpenAI's Responses API documents it (one message item, output_text). */
const responseObject = (model: string, state: ResponsesState, status: 'in_progress' | 'completed') => ({
  id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
  object: 'response',
  created_at: 1741476542,
  status,
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model,
  output:
    status === 'completed'
      ? [
          {
            type: 'message',
            id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: state.reply, annotations: [] }],
          },
        ]
      : [],
  parallel_tool_calls: true,
  previous_response_id: null,
  store: false,
  temperature: 1.0,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_p: 1.0,
  usage:
    status === 'completed' && state.usage
      ? {
          input_tokens: state.usage.prompt_tokens,
          input_tokens_details: { cached_tokens: state.usage.cached_tokens ?? 0 },
          output_tokens: state.usage.completion_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: state.usage.prompt_tokens + state.usage.completion_tokens,
        }
      : null,
  metadata: {},
});

/**
 * `POST /v1/responses` as OpenAI answers it: the Response object, or its SSE event sequence
 * (`response.created`, `response.in_progress`, the message item and its text part with one
 * `response.output_text.delta` per word, `response.completed` with the usage), each event with its
 * type and a sequence_number.
 */
export const answerResponses = (
  response: ServerResponse,
  body: Record<string, unknown> | undefined,
  state: ResponsesState,
): void => {
  const model = typeof body?.['model'] === 'string' ? body['model'] : 'gpt-4o';
  if (body?.['stream'] !== true) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(responseObject(model, state, 'completed')));
    return;
  }
  const item = {
    id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b',
    type: 'message',
    role: 'assistant',
  };
  const part = { type: 'output_text', text: '', annotations: [] };
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: responseObject(model, state, 'in_progress') },
    { type: 'response.in_progress', response: responseObject(model, state, 'in_progress') },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    },
    { type: 'response.content_part.added', item_id: item.id, output_index: 0, content_index: 0, part },
    ...state.reply.split(/(?<= )/).map((delta) => ({
      type: 'response.output_text.delta',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta,
    })),
    {
      type: 'response.output_text.done',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      text: state.reply,
    },
    {
      type: 'response.content_part.done',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { ...part, text: state.reply },
    },
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: { ...item, status: 'completed', content: [{ ...part, text: state.reply }] },
    },
    { type: 'response.completed', response: responseObject(model, state, 'completed') },
  ];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(
    events
      .map(
        (event, index) =>
          `event: ${String(event['type'])}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`,
      )
      .join(''),
  );
};
