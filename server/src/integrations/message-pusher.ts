import { z } from 'zod';
import { callProvider } from './provider-http.js';

export interface MessagePusher {
  /** MessagePusherAddress: the full push URL of a message-pusher instance. */
  readonly address: string;
  readonly token: string;
}

export interface PushedMessage {
  readonly title: string;
  readonly description: string;
  /** Markdown. */
  readonly content: string;
  readonly url?: string;
}

const answer = z.object({ success: z.boolean(), message: z.string().optional().default('') });

/** Pushes one message; throws with the pusher's own message when it refuses. */
export const pushMessage = async (pusher: MessagePusher, message: PushedMessage): Promise<void> => {
  const result = await callProvider(
    {
      provider: 'message pusher',
      url: pusher.address,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        title: message.title,
        description: message.description,
        content: message.content,
        url: message.url ?? '',
        channel: '',
        token: pusher.token,
      }),
    },
    answer,
  );
  if (!result.success) throw new Error(`the message pusher refused the message: ${result.message}`);
};
