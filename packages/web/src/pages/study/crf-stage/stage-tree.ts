import type { CrfStage, StageCrf } from '../../../api/study.api';

const byOrder =
  <T extends { orderNum: number | null | undefined }>(idOf: (item: T) => number) =>
  (a: T, b: T) =>
    (a.orderNum ?? 0) - (b.orderNum ?? 0) || idOf(a) - idOf(b);

/** A stage's forms in their order (orderNum, then id for ties). */
export function sortCrfs(crfs: readonly StageCrf[] | null | undefined): StageCrf[] {
  return [...(crfs ?? [])].sort(byOrder<StageCrf>((crf) => crf.crfId));
}

/**
 * The stage tree as the page shows it: siblings by orderNum (ties by id, so equal numbers keep
 * a stable order), forms in their order, and leaves without a children array (antd draws an
 * expander for an empty one).
 */
export function sortStageTree(stages: readonly CrfStage[] | null | undefined): CrfStage[] {
  return [...(stages ?? [])].sort(byOrder<CrfStage>((stage) => stage.id)).map((stage) => {
    const { children, ...rest } = stage;
    const sorted = children?.length ? sortStageTree(children) : undefined;
    return { ...rest, crfs: sortCrfs(stage.crfs), ...(sorted ? { children: sorted } : {}) };
  });
}

/** Every stage id, depth first (to expand the whole tree). */
export function stageIds(stages: readonly CrfStage[]): number[] {
  return stages.flatMap((stage) => [stage.id, ...stageIds(stage.children ?? [])]);
}

/** The siblings of a stage (the top level when it has no parent in the tree). */
export function siblingsOf(tree: readonly CrfStage[], id: number): CrfStage[] {
  if (tree.some((stage) => stage.id === id)) return [...tree];
  for (const stage of tree) {
    const found = siblingsOf(stage.children ?? [], id);
    if (found.length) return found;
  }
  return [];
}

export interface OrderChange {
  key: number;
  orderNum: number;
}

/**
 * Moves one item up (delta -1) or down (+1) among its ordered siblings and numbers them 1…n
 * again, returning only the items whose number changes. Renumbering instead of swapping two
 * numbers also repairs siblings that were saved with equal or missing numbers. Nothing moves
 * past either end.
 */
export function reorder<T extends { orderNum: number | null | undefined }>(
  ordered: readonly T[],
  keyOf: (item: T) => number,
  key: number,
  delta: -1 | 1,
): OrderChange[] {
  const from = ordered.findIndex((item) => keyOf(item) === key);
  const to = from + delta;
  if (from < 0 || to < 0 || to >= ordered.length) return [];
  const next = [...ordered];
  [next[from], next[to]] = [next[to], next[from]];
  return next
    .map((item, index) => ({ item, orderNum: index + 1 }))
    .filter(({ item, orderNum }) => item.orderNum !== orderNum)
    .map(({ item, orderNum }) => ({ key: keyOf(item), orderNum }));
}

/** The number a new sibling gets: after the last one. */
export function nextOrderNum(siblings: ReadonlyArray<{ orderNum: number | null | undefined }>): number {
  return siblings.reduce((max, item) => Math.max(max, item.orderNum ?? 0), 0) + 1;
}

/** Options of a stage picker: the tree with its names. */
export interface StageOption {
  value: number;
  title: string;
  children?: StageOption[];
}

export function stageOptions(stages: readonly CrfStage[]): StageOption[] {
  return stages.map((stage) => ({
    value: stage.id,
    title: stage.name,
    children: stage.children?.length ? stageOptions(stage.children) : undefined,
  }));
}
