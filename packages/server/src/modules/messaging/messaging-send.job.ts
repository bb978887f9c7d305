import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { maskName, visitWindowText, type MessageChannel, type MessageKind } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { crfs, followRecords, patientMessages, studies, subjects } from '../../db/schema/index.js';
import type { ScheduledTask } from '../../shared/scheduled-task.js';
import { providerOf } from './messaging-providers.js';
import { MESSAGE_SEND_JOB_KIND, patientLink } from './messaging-schedule.js';

export { MESSAGE_SEND_JOB_KIND };
import type { MessageProvider, SendOutcome } from './providers/provider.js';

/** Waits after a retryable failure, by the attempt that failed (1st, 2nd, 3rd); the 4th failure is final. */
export const RETRY_BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000] as const;
export const MAX_ATTEMPTS = 4;
/** Rows per send pass (the next pass, a minute later, takes the rest). */
const BATCH = 200;
const NOT_SENT = '发送失败';

/**
 * In-process pacing per provider: no more than `ratePerSecond` sends start within any second in this process. One app
 * server sends (the scheduler's claim and the job queue run one pass at a time), so this is the installation's rate.
 */
const lastStarts = new Map<string, number[]>();
async function pace(provider: MessageProvider) {
  const rate = Math.max(1, provider.ratePerSecond);
  const starts = lastStarts.get(provider.name) ?? [];
  const now = performance.now();
  while (starts.length > 0 && now - starts[0]! >= 1000) starts.shift();
  if (starts.length >= rate) {
    await new Promise((resolve) => setTimeout(resolve, 1000 - (now - starts[0]!)));
    starts.shift();
  }
  starts.push(performance.now());
  lastStarts.set(provider.name, starts);
}

async function attempt(
  provider: MessageProvider,
  message: Parameters<MessageProvider['send']>[0],
): Promise<SendOutcome> {
  try {
    return await provider.send(message);
  } catch (err) {
    // A provider throws only for a bug; the message is kept for another try, the bug logged.
    console.error(`message-send: provider ${provider.name} threw`, err);
    return { ok: false, retryable: true, error: NOT_SENT, answer: null };
  }
}

interface DueRow {
  studyId: number;
  crfId: number | null;
  subjectName: string;
  studyName: string;
  visitName: string | null;
  plannedDate: string | null;
  windowBefore: number | null;
  windowAfter: number | null;
  formName: string | null;
}

/** The template variables a provider with approved templates fills in, rebuilt from the row's occasion. */
function paramsOf(row: DueRow): Record<string, string> {
  const params: Record<string, string> = {
    patient: maskName(row.subjectName),
    study: row.studyName,
    link: patientLink(row.studyId, row.crfId),
  };
  if (row.visitName !== null) params.visit = row.visitName;
  if (row.plannedDate !== null) {
    params.window = visitWindowText({
      plannedDate: row.plannedDate,
      windowBefore: row.windowBefore ?? 0,
      windowAfter: row.windowAfter ?? 0,
    });
  }
  if (row.formName !== null) params.form = row.formName;
  return params;
}

/**
 * Sends the queued messages whose time has come, oldest first. Each row is claimed (queued → sending) before its
 * send, so two passes never send one row twice. Answers how many were sent.
 */
export async function sendDueMessages(
  ctx: AppContext,
  signal?: AbortSignal,
): Promise<{ sent: number; failed: number }> {
  const now = ctx.clock();
  const due = await ctx.db
    .select({
      id: patientMessages.id,
      kind: patientMessages.kind,
      channel: patientMessages.channel,
      content: patientMessages.content,
      attempts: patientMessages.attempts,
      mobile: subjects.mobile,
      openId: subjects.openId,
      studyId: patientMessages.studyId,
      crfId: patientMessages.crfId,
      subjectName: subjects.subjectName,
      studyName: studies.studyName,
      visitName: followRecords.visitName,
      plannedDate: followRecords.plannedDate,
      windowBefore: followRecords.windowBefore,
      windowAfter: followRecords.windowAfter,
      formName: crfs.title,
    })
    .from(patientMessages)
    .innerJoin(subjects, eq(subjects.id, patientMessages.subjectId))
    .innerJoin(studies, eq(studies.studyId, patientMessages.studyId))
    .leftJoin(followRecords, eq(followRecords.id, patientMessages.followRecordId))
    .leftJoin(crfs, eq(crfs.id, patientMessages.crfId))
    .where(and(eq(patientMessages.state, 'queued'), lte(patientMessages.notBefore, now)))
    .orderBy(asc(patientMessages.notBefore), asc(patientMessages.id))
    .limit(BATCH);
  let sent = 0;
  let failed = 0;
  for (const row of due) {
    if (signal?.aborted) break;
    const provider = providerOf(row.channel as MessageChannel);
    const to = (row.channel === 'wechat' ? row.openId : row.mobile)?.trim();
    const claimed = await ctx.db
      .update(patientMessages)
      .set({ state: 'sending', updatedAt: ctx.clock() })
      .where(and(eq(patientMessages.id, row.id), eq(patientMessages.state, 'queued')))
      .returning({ id: patientMessages.id });
    if (claimed.length === 0) continue;
    if (!provider || !to) {
      await ctx.db
        .update(patientMessages)
        .set({ state: 'failed', error: provider ? '收件地址已不存在' : '未配置发送通道', updatedAt: ctx.clock() })
        .where(eq(patientMessages.id, row.id));
      failed++;
      continue;
    }
    await pace(provider);
    const outcome = await attempt(provider, {
      messageId: row.id,
      kind: row.kind as MessageKind,
      to,
      content: row.content,
      params: paramsOf(row),
    });
    const at = ctx.clock();
    const attempts = row.attempts + 1;
    if (outcome.ok) {
      const delivered = provider.name === 'dev';
      await ctx.db
        .update(patientMessages)
        .set({
          state: delivered ? 'delivered' : 'sent',
          attempts,
          provider: provider.name,
          providerMessageId: outcome.providerMessageId,
          providerAnswer: outcome.answer ?? null,
          sentAt: at,
          deliveredAt: delivered ? at : null,
          error: null,
          updatedAt: at,
        })
        .where(eq(patientMessages.id, row.id));
      sent++;
      continue;
    }
    const again = outcome.retryable && attempts < MAX_ATTEMPTS;
    await ctx.db
      .update(patientMessages)
      .set({
        state: again ? 'queued' : 'failed',
        attempts,
        provider: provider.name,
        providerAnswer: outcome.answer ?? null,
        error: outcome.error.slice(0, 500),
        notBefore: again ? new Date(at.getTime() + RETRY_BACKOFF_MS[attempts - 1]!) : undefined,
        updatedAt: at,
      })
      .where(eq(patientMessages.id, row.id));
    if (!again) failed++;
  }
  return { sent, failed };
}

/** Rows left 'sending' by a process that died mid-send go back to the queue (a provider's idempotency key is the id). */
export async function requeueStale(ctx: AppContext) {
  const before = new Date(ctx.clock().getTime() - 10 * 60_000);
  await ctx.db
    .update(patientMessages)
    .set({ state: 'queued' })
    .where(and(inArray(patientMessages.state, ['sending']), lte(patientMessages.updatedAt, before)));
}

export async function runMessageSendJob(ctx: AppContext, signal?: AbortSignal) {
  await requeueStale(ctx);
  return sendDueMessages(ctx, signal);
}

/** Every tick (a minute): the rows whose quiet hours or backoff have passed. */
export function messagesSendTask(ctx: AppContext): ScheduledTask {
  return {
    name: 'messages.send',
    every: 'tick',
    async run() {
      const { sent, failed } = await runMessageSendJob(ctx);
      return `${sent} patient messages sent, ${failed} failed`;
    },
  };
}
