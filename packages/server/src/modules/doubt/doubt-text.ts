import { asc, eq, inArray } from 'drizzle-orm';
import {
  identifierItemsOf,
  isIdentifierKey,
  itemTitle,
  maskedValue,
  readRows,
  unitOf,
  valueText,
  type CrfNode,
} from '@ecrf/core';
import type { Db } from '../../db/client.js';
import { crfDataRecords, crfStageCrfs, crfStages, crfs } from '../../db/schema/index.js';
import {
  fileKeysOf,
  fileLinksOf,
  fileNamesOf,
  sideValuesOverTime,
  type FileLink,
} from '../audit/audit-text.service.js';
import { definitionsOf, nodesOf, versionKey } from '../study/crf-definitions.js';

/** What a query names: its form, record, item (or a row's cell) and when it was raised. */
export interface DoubtFacts {
  studyId: number;
  crfId: number;
  crfDataRecordId: number;
  itemName: string;
  groupName: string | null;
  groupIndex: number | null;
  itemValue: unknown;
  createdAt: Date;
}

/** The words of a query for people: titles instead of variable names, the value with its unit, the visit. */
export interface DoubtWords {
  itemTitle: string;
  /** The list group or table a cell belongs to; null for an item of the form. */
  groupTitle: string | null;
  /** The value when the query was raised, as a person reads it (labels, unit, file names). */
  itemValueText: string;
  /** The unit the item is read in ('' when it has none). */
  itemUnit: string;
  /** The stage(s) (visit) the form belongs to, in the study's order. */
  stageName: string;
  /** The CRF version the record was entered with. */
  crfVersion: number | null;
  itemFiles: FileLink[];
}

export interface DoubtReader {
  words: (doubt: DoubtFacts) => DoubtWords;
  /** Any value of the query's item in words: read beside the record as it was at `at` (now, when absent). */
  text: (doubt: DoubtFacts, value: unknown, at?: Date) => string;
  /** A value of the query's item as the reader may see it: masked when the item is an identifier they may not see. */
  shown: (doubt: DoubtFacts, value: unknown) => unknown;
}

/**
 * Reads the forms, records, stages, unit history and file names a page of queries needs in a fixed
 * number of statements (no query per row), and puts the queries into words with core's rules.
 */
export async function doubtReader(
  db: Db,
  studyId: number,
  doubts: readonly DoubtFacts[],
  /** Other values of these queries' items that will be put into words (a thread's values), for their file names. */
  moreValues: ReadonlyArray<readonly [DoubtFacts, unknown]> = [],
  /** False for a reader without 查看患者身份信息: a query on an identifier item shows its values masked. */
  identifiers = true,
): Promise<DoubtReader> {
  const recordIds = [...new Set(doubts.map((d) => d.crfDataRecordId))];
  const records = recordIds.length
    ? await db
        .select({ id: crfDataRecords.id, crfVersion: crfDataRecords.crfVersion, values: crfDataRecords.values })
        .from(crfDataRecords)
        .where(inArray(crfDataRecords.id, recordIds))
    : [];
  const recordById = new Map(records.map((r) => [r.id, r]));
  const crfIds = [...new Set(doubts.map((d) => d.crfId))];
  const currentVersions = new Map(
    identifiers || crfIds.length === 0
      ? []
      : (await db.select({ id: crfs.id, version: crfs.currentVersion }).from(crfs).where(inArray(crfs.id, crfIds))).map(
          (f) => [f.id, f.version],
        ),
  );
  const versionsOf = (d: DoubtFacts) => {
    const record = recordById.get(d.crfDataRecordId);
    const current = currentVersions.get(d.crfId);
    return [...(record ? [record.crfVersion] : []), ...(current === undefined ? [] : [current])];
  };
  const definitions = await definitionsOf(
    db,
    doubts.flatMap((d) => versionsOf(d).map((version) => ({ crfId: d.crfId, version }))),
  );
  const shown = (d: DoubtFacts, value: unknown) => {
    if (identifiers) return value;
    const ids = identifierItemsOf(...versionsOf(d).flatMap((v) => definitions.get(versionKey(d.crfId, v)) ?? []));
    return isIdentifierKey(ids, d.itemName, d.groupName) ? maskedValue(value) : value;
  };
  const stageRows = crfIds.length
    ? await db
        .select({ crfId: crfStageCrfs.crfId, name: crfStages.name })
        .from(crfStageCrfs)
        .innerJoin(crfStages, eq(crfStages.id, crfStageCrfs.stageId))
        .where(inArray(crfStageCrfs.crfId, crfIds))
        .orderBy(asc(crfStages.orderNum), asc(crfStages.id))
    : [];
  const stagesOf = new Map<number, string[]>();
  for (const row of stageRows) stagesOf.set(row.crfId, [...(stagesOf.get(row.crfId) ?? []), row.name]);
  const side = await sideValuesOverTime(db, recordIds);

  const nodesOfDoubt = (d: DoubtFacts): ReadonlyMap<string, CrfNode> => {
    const record = recordById.get(d.crfDataRecordId);
    const definition = record ? definitions.get(versionKey(d.crfId, record.crfVersion)) : undefined;
    return definition ? nodesOf(definition) : new Map();
  };
  const nodeOf = (d: DoubtFacts, nodes: ReadonlyMap<string, CrfNode>) => {
    if (!d.groupName) return nodes.get(d.itemName);
    return nodes.get(d.groupName)?.children.find((c) => c.name === d.itemName) ?? nodes.get(d.itemName);
  };
  // A row's cell is read beside its row (its unit is kept in the row); an item beside the record's
  // side values of the time.
  const besideOf = (d: DoubtFacts, at: Date | undefined): Record<string, unknown> => {
    const record = recordById.get(d.crfDataRecordId);
    if (d.groupName) return readRows(record?.values[d.groupName])[d.groupIndex ?? -1] ?? {};
    return at ? side(d.crfDataRecordId, at, true) : (record?.values ?? {});
  };

  const currentOf = (d: DoubtFacts) => {
    const values = recordById.get(d.crfDataRecordId)?.values ?? {};
    return d.groupName ? readRows(values[d.groupName])[d.groupIndex ?? -1]?.[d.itemName] : values[d.itemName];
  };
  const keys = [
    ...doubts.flatMap((d) => [d.itemValue, currentOf(d)].map((v) => [d, v] as const)),
    ...moreValues,
  ].flatMap(([d, value]) => fileKeysOf(nodeOf(d, nodesOfDoubt(d)), shown(d, value)));
  const fileNames = await fileNamesOf(db, studyId, keys);

  const text = (d: DoubtFacts, value: unknown, at?: Date) => {
    const nodes = nodesOfDoubt(d);
    return valueText(nodeOf(d, nodes), shown(d, value), besideOf(d, at), { fileNames });
  };
  const words = (d: DoubtFacts): DoubtWords => {
    const nodes = nodesOfDoubt(d);
    const node = nodeOf(d, nodes);
    return {
      itemTitle: node ? itemTitle(new Map([[d.itemName, node]]), d.itemName) : itemTitle(nodes, d.itemName),
      groupTitle: d.groupName ? itemTitle(nodes, d.groupName) : null,
      itemValueText: text(d, d.itemValue, d.createdAt),
      itemUnit: unitOf(node, besideOf(d, d.createdAt)),
      stageName: (stagesOf.get(d.crfId) ?? []).join('、'),
      crfVersion: recordById.get(d.crfDataRecordId)?.crfVersion ?? null,
      itemFiles: fileLinksOf(node, shown(d, d.itemValue), fileNames),
    };
  };
  return { words, text, shown };
}
