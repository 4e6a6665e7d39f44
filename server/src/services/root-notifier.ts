import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.js';
import { pushMessage } from '../integrations/message-pusher.js';
import { escapeHtml } from '../lib/html.js';
import type { Mailer } from './mailer.js';
import type { OptionStore } from './option-store.js';

export interface RootNotifierDeps {
  readonly db: Kysely<Tables>;
  readonly options: OptionStore;
  readonly mailer: Mailer;
  readonly logger: Logger;
  /** Background work the process waits for on shutdown. */
  readonly track: (work: Promise<unknown>) => void;
}

/**
 * Tells root about events (channels disabled or re-enabled automatically), as one-api does: through
 * the message pusher when one is configured and it accepts the message, else by mail to the email of
 * the root user. Delivery runs in the background; a failure is logged, never thrown at the caller.
 */
export const createRootNotifier = (deps: RootNotifierDeps) => {
  const deliver = async (title: string, content: string): Promise<void> => {
    const values = deps.options.values;
    if (values.MessagePusherAddress.trim() !== '') {
      try {
        await pushMessage(
          { address: values.MessagePusherAddress.trim(), token: values.MessagePusherToken },
          { title, description: content, content },
        );
        return;
      } catch (error) {
        deps.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'message pusher failed, notifying root by email instead',
        );
      }
    }
    const root = await deps.db
      .selectFrom('users')
      .select('email')
      .where('role', '>=', 100)
      .orderBy('id')
      .executeTakeFirst();
    const email = root?.email?.trim() ?? '';
    if (email === '') {
      deps.logger.warn({ title }, 'root has no email address: notification dropped');
      return;
    }
    await deps.mailer.send(email, title, `<p>${escapeHtml(content)}</p>`);
  };

  return {
    notifyRoot: (title: string, content: string): void => {
      deps.track(
        deliver(title, content).catch((error: unknown) =>
          deps.logger.error(
            { reason: error instanceof Error ? error.message : String(error), title },
            'root notification failed',
          ),
        ),
      );
    },
  };
};

export type RootNotifier = ReturnType<typeof createRootNotifier>;
