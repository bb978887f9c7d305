import type { MessageProvider } from './provider.js';

/**
 * The development provider (SMS_PROVIDER=dev, the default): it sends nothing. The message row the send job keeps is
 * the outbox that tests and the development outbox page read; the answer only records that the dev provider took it.
 */
export const devMessageProvider: MessageProvider = {
  name: 'dev',
  channel: 'sms',
  ratePerSecond: 100,
  send: (message) =>
    Promise.resolve({
      ok: true,
      providerMessageId: `dev-${message.messageId}`,
      answer: { provider: 'dev', delivered: 'outbox' },
    }),
};
