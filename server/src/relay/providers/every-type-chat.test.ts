import { CHANNEL_TYPE, CHANNEL_TYPE_NAMES, type ChannelTypeName } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { unsupportedMessage } from '../pipeline/upstream-error.js';
import { PROVIDERS } from './registry.js';

/**
 * Types of the catalogue still without an adaptor that takes chat (they answer 501). Empty: every
 * type relays. A type that lands must leave this list, a type that loses its adaptor fails below.
 */
const KNOWN_GAPS: readonly ChannelTypeName[] = [];

/** Proxy (43) is reached only through /v1/oneapi/proxy, by design: it has no chat to relay. */
const PROXY_ONLY: readonly ChannelTypeName[] = ['proxy'];

describe('every channel type of the catalogue relays chat', () => {
  const withoutChat = CHANNEL_TYPE_NAMES.filter(
    (name) => !PROVIDERS[CHANNEL_TYPE[name]]?.adaptor?.modes.includes('chat'),
  );

  it('has an adaptor taking chat for every type but Proxy (no 501), the known gaps listed', () => {
    expect(withoutChat.filter((name) => !PROXY_ONLY.includes(name))).toEqual(KNOWN_GAPS);
  });

  it('answers a chat to a Proxy channel with an error that points at /v1/oneapi/proxy', () => {
    expect(withoutChat).toContain('proxy');
    expect(unsupportedMessage(CHANNEL_TYPE.proxy, 'chat')).toContain('/v1/oneapi/proxy/<channel id>/<path>');
  });
});
