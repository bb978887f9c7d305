import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { pagingQueryFields, studyIdQuerySchema } from '../request-fields.js';

/**
 * The HTTP contract of medical coding (医学编码, issue 37): a study loads its licensed MedDRA and WHODrug
 * dictionaries, names the items coded against them, and its coders code and approve each verbatim.
 */

export const CODING_KINDS = ['meddra', 'whodrug'] as const;
export type CodingKind = (typeof CODING_KINDS)[number];
export const CODING_LANGUAGES = ['zh', 'en'] as const;
/** uncoded: waiting for a coder; auto: the verbatim matched one term exactly; manual: a coder chose; approved. */
export const CODING_STATES = ['uncoded', 'auto', 'manual', 'approved'] as const;
export type CodingState = (typeof CODING_STATES)[number];

export const CODING_KIND_NAMES: Readonly<Record<CodingKind, string>> = { meddra: 'MedDRA', whodrug: 'WHODrug' };
export const CODING_STATE_NAMES: Readonly<Record<CodingState, string>> = {
  uncoded: '未编码',
  auto: '自动编码',
  manual: '人工编码',
  approved: '已审核',
};

export const CODING_MSG = {
  loaded: '词典已加载',
  itemsSaved: '编码条目已保存',
  coded: '已编码',
  approved: '已审核',
  noFiles: '请选择词典文件',
  badFile: '词典文件格式不正确',
  tooLarge: '词典文件过大',
  itemNotInForm: '表单中没有该题目',
  formNotFound: '表单不存在',
  dictionaryNotFound: '词典不存在',
  noDictionary: '尚未加载该类词典',
  codedItemNotFound: '编码条目不存在',
  termNotFound: '词典中没有该编码',
  notCoded: '未编码的条目不能审核',
  ownCode: '不能审核自己编码的条目，须由另一位编码审核人审核',
  badZip: '压缩包无法读取',
} as const;

/** POST /api/business/coding/dictionary (multipart files; the rest in the query, so the guard runs first). */
export const codingDictionaryQuerySchema = studyIdQuerySchema.extend({
  kind: z.enum(CODING_KINDS),
  version: z.string().trim().min(1).max(40),
  language: z.enum(CODING_LANGUAGES),
});
export type CodingDictionaryQuery = z.output<typeof codingDictionaryQuerySchema>;

/** GET /api/business/coding/dictionaries */
export const codingDictionariesQuerySchema = studyIdQuerySchema;

export const codedItemSettingSchema = z.object({
  crfId: rowIdSchema,
  itemName: z.string().trim().min(1).max(100),
  kind: z.enum(CODING_KINDS),
});
export type CodedItemSetting = z.infer<typeof codedItemSettingSchema>;

/** PUT /api/business/coding/items: the study's coded items, all of them (an empty list turns coding off). */
export const codingItemsBodySchema = z.object({
  studyId: rowIdSchema,
  items: z.array(codedItemSettingSchema).max(200),
});
export type CodingItemsBody = z.output<typeof codingItemsBodySchema>;

/** GET /api/business/coding/items */
export const codingListQuerySchema = studyIdQuerySchema.extend({
  state: z.enum(CODING_STATES).optional(),
  ...pagingQueryFields,
});
export type CodingListQuery = z.output<typeof codingListQuerySchema>;

/** GET /api/business/coding/search */
export const codingSearchQuerySchema = studyIdQuerySchema.extend({
  kind: z.enum(CODING_KINDS),
  q: z.string().trim().min(1).max(100),
});
export type CodingSearchQuery = z.output<typeof codingSearchQuerySchema>;

/** POST /api/business/coding/code: a coder codes one item to an LLT (MedDRA) or a drug (WHODrug) by its code. */
export const codingCodeBodySchema = z.object({
  studyId: rowIdSchema,
  codedItemId: rowIdSchema,
  termCode: z.string().trim().min(1).max(20),
});
export type CodingCodeBody = z.output<typeof codingCodeBodySchema>;

/** POST /api/business/coding/approve */
export const codingApproveBodySchema = z.object({
  studyId: rowIdSchema,
  codedItemIds: z.array(rowIdSchema).min(1).max(500),
});
export type CodingApproveBody = z.output<typeof codingApproveBodySchema>;

/** GET /api/business/coding/upgrade-impact */
export const codingUpgradeQuerySchema = studyIdQuerySchema.extend({ dictionaryId: rowIdTextSchema });

// ---- Responses ----

export interface CodingDictionary {
  id: number;
  kind: CodingKind;
  version: string;
  language: string;
  active: boolean;
  termCount: number;
  loadedBy: string | null;
  loadedAt: string;
}

export interface CodedItemRow {
  id: number;
  subjectRecordId: number;
  crfDataRecordId: number;
  patientCode: string;
  siteName: string | null;
  crfId: number;
  crfName: string;
  itemName: string;
  kind: CodingKind | null;
  verbatim: string;
  state: CodingState;
  coding: Record<string, unknown> | null;
  codedBy: string | null;
  /** Who coded it by hand (null for an auto-code): that user never approves it. */
  codedById: number | null;
  codedAt: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
}

/**
 * Why a caller may not approve a coded item (编码审核, issue 37), or null when they may: an uncoded item has nothing to
 * approve, and the coder of a manual code never approves it (a second pair of eyes; an auto-code has no coder).
 * An approved item may be approved again (nothing changes).
 */
export function codingApprovalRefusal(
  item: { state: CodingState; codedById: number | null },
  userId: number,
): 'not_coded' | 'own_code' | null {
  if (item.state === 'uncoded') return 'not_coded';
  if (item.codedById !== null && item.codedById === userId) return 'own_code';
  return null;
}

export interface CodingSearchHit {
  level: string;
  code: string;
  name: string;
  current: boolean;
  /** For an LLT: its PT and primary SOC; for a drug: its ATC. */
  path: Record<string, unknown>;
}

export interface CodingUpgradeImpact {
  codedItemId: number;
  verbatim: string;
  reason: 'llt_missing' | 'llt_not_current' | 'pt_changed' | 'soc_changed' | 'drug_missing' | 'atc_changed';
  before: Record<string, unknown>;
  after: Record<string, unknown> | null;
}
