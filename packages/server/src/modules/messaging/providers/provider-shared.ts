import type { MessageKind, MessageVariable } from '@ecrf/core';
import { MESSAGE_KINDS } from '@ecrf/core';
import type { SendOutcome } from './provider.js';

/**
 * Which of MESSAGE_VARIABLES each kind's approved SMS template takes, in order: the variables of
 * DEFAULT_MESSAGE_TEMPLATES as they appear there. Tencent's TemplateParamSet is this list's values in order (the
 * template's {1}, {2}, …); Alibaba's TemplateParam is a JSON object with these names (${patient}, ${study}, …); the
 * WeChat template's default field mapping is keyword1… over the same list. A hospital applies for its templates with
 * exactly these variables (docs/messaging-providers.md).
 */
export const SMS_PARAM_ORDER: Record<MessageKind, readonly MessageVariable[]> = {
  visit_before: ['patient', 'study', 'window', 'visit'],
  visit_first_day: ['patient', 'study', 'visit', 'window'],
  visit_overdue: ['patient', 'visit', 'window'],
  pro_invite: ['patient', 'study', 'form', 'link'],
  pro_remind: ['patient', 'form', 'link'],
};

/** How long one provider call may take before it counts as a (retryable) network failure. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** `visit_before=123456,visit_first_day=123457`: the template per kind; an unknown kind is an Error naming `name`. */
export function parseKindMap(name: string, value: string): Partial<Record<MessageKind, string>> {
  const map: Partial<Record<MessageKind, string>> = {};
  for (const entry of value.split(',')) {
    const item = entry.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const kind = eq > 0 ? item.slice(0, eq).trim() : '';
    const id = eq > 0 ? item.slice(eq + 1).trim() : '';
    if (!isKind(kind) || !id) {
      throw new Error(`${name}: "${item}" is not <kind>=<template id> (kinds: ${MESSAGE_KINDS.join(', ')})`);
    }
    map[kind] = id;
  }
  return map;
}

export function isKind(value: string): value is MessageKind {
  return (MESSAGE_KINDS as readonly string[]).includes(value);
}

/** The kind's parameters in SMS_PARAM_ORDER, or the name of the first one the message lacks. */
export function orderedParams(
  kind: MessageKind,
  params: Record<string, string>,
): { values: string[] } | { missing: string } {
  const values: string[] = [];
  for (const name of SMS_PARAM_ORDER[kind]) {
    const value = params[name];
    if (value === undefined) return { missing: name };
    values.push(value);
  }
  return { values };
}

/** A refusal before anything was sent (no template configured, a parameter missing): another attempt cannot help. */
export function notConfigured(error: string): SendOutcome {
  return { ok: false, retryable: false, error, answer: null };
}

/** fetch with a timeout; a network failure or timeout comes back as a retryable outcome instead of a throw. */
export async function fetchOrFailure(
  url: string,
  init: RequestInit,
  timeoutMs = PROVIDER_TIMEOUT_MS,
): Promise<{ response: Response } | { failure: SendOutcome }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { response };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const what = error.name === 'TimeoutError' ? 'timeout' : (cause ?? error.message);
    return { failure: { ok: false, retryable: true, error: `network: ${what}`, answer: null } };
  }
}

/** The answer's body as JSON, or the raw text when it is not JSON. */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
