import { messageProvidersFromEnv, type MessageProviders } from './providers/provider-config.js';
import type { MessageProvider } from './providers/provider.js';
import type { MessageChannel } from '@ecrf/core';

/**
 * The providers the send job uses: read from the environment once, on first use (a configuration error is then an
 * Error at the first send pass, not at every message). Tests put a fake in place with setMessageProviders, as the
 * patient portal's setIdentityProvider does.
 */
let providers: MessageProviders | null = null;

export function setMessageProviders(next: Partial<MessageProviders> | null) {
  providers = next === null ? null : { ...messageProviders(), ...next };
}

export function messageProviders(): MessageProviders {
  providers ??= messageProvidersFromEnv(process.env);
  return providers;
}

export const providerOf = (channel: MessageChannel): MessageProvider | null =>
  channel === 'wechat' ? messageProviders().wechat : messageProviders().sms;

/** The development outbox is open only while SMS goes to the dev provider. */
export const outboxOpen = () => messageProviders().sms.name === 'dev';
