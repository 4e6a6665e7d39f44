import type { ClientFormat } from '@sluice/contract/schemas/log';
import type { Usage } from '../providers/adaptor.js';
import { cacheText, ratioText, type Ratios } from './pricing.js';
import { routingText, type RoutingTrail } from './routing-trail.js';
import type { Payer, Settlement } from './settlement-write.js';

/** What one answered request costs, as the attempt that answered it worked it out. */
export interface Charge {
  readonly channelId: number;
  /** The model billed and logged: the one the channel maps the request to. */
  readonly model: string;
  readonly ratios: Ratios;
  /** The real cost in quota units (the reservation is settled against it). */
  readonly cost: number;
  readonly usage: Usage;
  readonly stream: boolean;
  /** The channel's system prompt replaced the client's (said in the log row). */
  readonly systemPromptReset: boolean;
}

/** Who pays, and what the log row says of the request itself. */
export interface ChargedRequest {
  readonly payer: Payer;
  readonly username: string;
  readonly tokenName: string;
  /** What admission reserved (0 for a trusted payer): the settlement moves the balances by cost − reserved. */
  readonly reserved: number;
  readonly reservationId: string | undefined;
  readonly requestId: string;
  /** `performance.now()` when the request reached the pipeline. */
  readonly startedAt: number;
  /** LogConsumeEnabled: whether consumption gets a log row. */
  readonly logged: boolean;
  /** The format the client spoke (said in the log row). */
  readonly clientFormat: ClientFormat;
  /** The request's attempts, strategy and affinity (said in the log row). */
  readonly routing?: RoutingTrail | undefined;
}

/** The settlement of one answered request: the balances' move, the counters and its log row. */
export const settlementOf = (request: ChargedRequest, charge: Charge): Settlement => ({
  payer: request.payer,
  username: request.username,
  tokenName: request.tokenName,
  channelId: charge.channelId,
  preQuota: request.reserved,
  reservationId: request.reservationId,
  quota: charge.cost,
  log: request.logged
    ? {
        model: charge.model,
        promptTokens: charge.usage.prompt_tokens,
        completionTokens: charge.usage.completion_tokens,
        content:
          ratioText(charge.ratios) +
          cacheText(charge.usage, charge.ratios) +
          (charge.systemPromptReset ? ' (system prompt reset)' : ''),
        requestId: request.requestId,
        elapsedMs: Math.round(performance.now() - request.startedAt),
        stream: charge.stream,
        systemPromptReset: charge.systemPromptReset,
        clientFormat: request.clientFormat,
        routing: request.routing && routingText(request.routing, charge.channelId),
      }
    : undefined,
});
