import { and, eq, ne } from 'drizzle-orm';
import { isValueType, type CrfDefinition, type CrfNode, type FormIssue, type FormState } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { doubts, studies } from '../../db/schema/index.js';
import { auditSystem } from '../audit/audit.service.js';
import type { DomainEvent } from '../../shared/domain-events.js';
import { addMessage, DOUBT_MSG, DOUBT_TYPE, insertOpenDoubt, OPTION, valueAt } from './doubt.service.js';

const SYSTEM_NAME = '系统';

function titlesOf(definition: CrfDefinition) {
  const titles = new Map<string, string>();
  const walk = (nodes: CrfNode[]) => {
    for (const node of nodes) {
      if (node.name && isValueType(node.type)) titles.set(node.name, node.title);
      walk(node.children ?? []);
    }
  };
  walk(definition.children);
  return titles;
}

interface Finding {
  itemName: string;
  groupName: string | null;
  groupIndex: number | null;
  message: string;
}

/** The engine's warnings and out-of-range values of a submitted record, as system-query findings. */
export function systemFindings(definition: CrfDefinition, state: FormState): Finding[] {
  const titles = titlesOf(definition);
  const findings: Finding[] = state.warnings.map((w: FormIssue) => ({
    itemName: w.item,
    groupName: w.container ?? null,
    groupIndex: w.row ?? null,
    message: w.message,
  }));
  for (const [name, item] of Object.entries(state.items)) {
    if (item.visible && item.range) {
      findings.push({
        itemName: name,
        groupName: null,
        groupIndex: null,
        message: `${titles.get(name) ?? name}${item.range === 'low' ? '低于' : '高于'}参考范围，请核实`,
      });
    }
  }
  return findings;
}

const keyOf = (f: Finding) => `${f.groupName ?? ''}|${f.groupIndex ?? ''}|${f.itemName}|${f.message}`.slice(0, 300);

/**
 * System queries (doubtType 0): raised from the engine's warnings when a record is submitted, never
 * twice for the same check while it is unresolved, and closed by the system once a later save no
 * longer raises the warning (the value was corrected). Run by the system-query subscriber after the
 * save committed (system-queries.subscriber.ts), on the record as it is then; each query raised or
 * closed is audited as the system's act (doubt.system_open, doubt.system_close) and published.
 */
export async function syncSystemQueries(
  ctx: AppContext,
  tx: Db,
  now: Date,
  record: {
    id: number;
    studyId: number;
    subjectId: number;
    subjectRecordId: number;
    crfId: number;
    crfVersion: number;
    values: Record<string, unknown>;
  },
  /** The user whose save set this off: the query rows' creator, as before; the trail names 系统. */
  triggeredBy: number,
  findings: Finding[],
  raise: boolean,
) {
  const [study] = await tx.select({ doubt: studies.doubt }).from(studies).where(eq(studies.studyId, record.studyId));
  if (study?.doubt !== '1') return;
  const active = await tx
    .select()
    .from(doubts)
    .where(
      and(
        eq(doubts.crfDataRecordId, record.id),
        eq(doubts.doubtType, DOUBT_TYPE.system),
        ne(doubts.optionType, OPTION.closed),
      ),
    );
  const current = new Map(findings.map((f) => [keyOf(f), f]));
  const system = { userId: triggeredBy, userName: SYSTEM_NAME };
  const base = {
    studyId: record.studyId,
    subjectRecordId: record.subjectRecordId,
    crfDataRecordId: record.id,
    crfId: record.crfId,
    crfVersion: record.crfVersion,
  };
  const event = (type: 'query.opened' | 'query.closed', queryId: number): DomainEvent => ({
    type,
    studyId: record.studyId,
    subjectId: record.subjectId,
    crfId: record.crfId,
    queryId,
    by: null,
  });
  for (const doubt of active) {
    if (doubt.checkKey && !current.has(doubt.checkKey)) {
      await tx
        .update(doubts)
        .set({ optionType: OPTION.closed, closedAt: now, updatedAt: now })
        .where(eq(doubts.id, doubt.id));
      await addMessage(
        tx,
        doubt.id,
        doubt.studyId,
        'auto_close',
        DOUBT_MSG.autoClosed,
        valueAt(record.values, doubt.itemName, doubt.groupName, doubt.groupIndex),
        system,
        now,
      );
      await auditSystem(tx, now, [
        { ...base, action: 'doubt.system_close', itemName: doubt.itemName, reason: DOUBT_MSG.autoClosed },
      ]);
      await ctx.events.record(tx, event('query.closed', doubt.id));
    }
  }
  if (!raise) return;
  const open = new Set(active.map((d) => d.checkKey));
  for (const [key, finding] of current) {
    if (open.has(key)) continue;
    const itemValue = valueAt(record.values, finding.itemName, finding.groupName, finding.groupIndex);
    const doubtId = await insertOpenDoubt(
      tx,
      record,
      {
        itemName: finding.itemName,
        groupName: finding.groupName,
        groupIndex: finding.groupIndex,
        itemValue,
        doubtDescription: finding.message,
        doubtType: DOUBT_TYPE.system,
        checkKey: key,
        createdBy: triggeredBy,
        userName: SYSTEM_NAME,
      },
      now,
    );
    await addMessage(tx, doubtId, record.studyId, 'open', finding.message, itemValue, system, now);
    await auditSystem(tx, now, [
      { ...base, action: 'doubt.system_open', itemName: finding.itemName, newValue: finding.message },
    ]);
    await ctx.events.record(tx, event('query.opened', doubtId));
  }
}
