import type { MessageChannel, MessageKind } from '@ecrf/core';

/**
 * A way to reach a patient (issue 38): the development outbox, Tencent Cloud SMS, Alibaba Cloud SMS, or the WeChat
 * official account. The send job calls `send` once per attempt; a provider never throws for an answer it got (a
 * refusal is `ok: false` with the provider's own code and message), only for a bug. `retryable` says whether another
 * attempt could succeed (a timeout, a rate limit, a server error), as opposed to a refusal that will repeat (a bad
 * number, an unapproved template, a patient who unsubscribed on the WeChat side).
 */
export interface MessageProvider {
  /** dev | tencent | aliyun | wechat: stored on each message. */
  readonly name: string;
  readonly channel: MessageChannel;
  /** Sends per second this provider accepts (the send job's rate limit). */
  readonly ratePerSecond: number;
  send(message: OutgoingMessage): Promise<SendOutcome>;
}

export interface OutgoingMessage {
  /** Our message id: the idempotency key where the provider takes one (SessionContext, OutId, client_msg_id). */
  messageId: number;
  kind: MessageKind;
  /** The clear mobile number (E.164 without '+', or 11 digits) for SMS; the openId for WeChat. */
  to: string;
  /** The text as our template rendered it (the dev outbox and WeChat's fields show it). */
  content: string;
  /** The template variables, for providers that send their own approved template with parameters. */
  params: Record<string, string>;
}

export type SendOutcome =
  | { ok: true; providerMessageId: string | null; answer: unknown }
  | { ok: false; retryable: boolean; error: string; answer: unknown };
