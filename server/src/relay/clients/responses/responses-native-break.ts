import { parseJson } from '@sluice/contract/parse-json';
import type { NativeBreakWriter } from '../client-format.js';
import { readNumber, readRecord, readString, type JsonRecord } from './read-record.js';
import { failedEvents, responseError } from './responses-failure.js';

/** The events whose data the break reads (kept as the strings they came as, parsed only on a break). */
const KEPT = new Set([
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.output_item.done',
  'response.output_text.delta',
  'response.function_call_arguments.delta',
]);

/** A delta's text added to the item it belongs to (an item still open when the stream broke). */
const applyDelta = (item: Record<string, unknown>, type: string, event: JsonRecord): void => {
  const delta = readString(event['delta']) ?? '';
  if (type === 'response.function_call_arguments.delta') {
    item['arguments'] = (readString(item['arguments']) ?? '') + delta;
    return;
  }
  const content = Array.isArray(item['content']) ? (item['content'] as unknown[]) : [];
  const at = readNumber(event['content_index']) ?? 0;
  const part = readRecord(content[at]) ?? { type: 'output_text', text: '', annotations: [] };
  content[at] = { ...part, text: (readString(part['text']) ?? '') + delta };
  item['content'] = content;
};

/**
 * A Responses stream relayed untouched from a channel that speaks the API (OpenAI's own) ends, when
 * it breaks, with `error` and `response.failed` as a translated one does (responses-stream.ts): the
 * response as `response.created` (or `in_progress`) gave it, status `failed`, its error, and the
 * output as delivered (items done as they came; an item still open, `incomplete`, with its deltas),
 * its usage as the stream said it (none before the final event). Per event only a name is looked
 * up and a string kept; the JSON is read only if the stream breaks.
 */
export const createResponsesNativeBreak = (): NativeBreakWriter => {
  const kept: { type: string; data: string }[] = [];
  let sequence = 0;
  return {
    observe: (event) => {
      sequence += 1;
      const type = event.event;
      if (KEPT.has(type)) kept.push({ type, data: event.data });
    },
    failed: (error) => {
      let response: JsonRecord = {};
      const items: (Record<string, unknown> | undefined)[] = [];
      const done = new Set<number>();
      for (const { type, data } of kept) {
        const event = readRecord(parseJson(data));
        if (!event) continue;
        const index = readNumber(event['output_index']) ?? -1;
        if (type === 'response.created' || type === 'response.in_progress')
          response = readRecord(event['response']) ?? response;
        else if (type === 'response.output_item.added' && index >= 0 && !done.has(index))
          items[index] = { ...readRecord(event['item']), status: 'incomplete' };
        else if (type === 'response.output_item.done' && index >= 0) {
          items[index] = { ...readRecord(event['item']) };
          done.add(index);
        } else if (index >= 0 && !done.has(index)) {
          const item = items[index];
          if (item) applyDelta(item, type, event);
        }
      }
      const failed = {
        ...response,
        status: 'failed',
        error: responseError(error),
        incomplete_details: null,
        output: items.filter((item) => item !== undefined),
        usage: response['usage'] ?? null,
      };
      return failedEvents(error, failed, sequence);
    },
  };
};
