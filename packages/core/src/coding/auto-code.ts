import type { DictionaryTerm } from './meddra.js';

/**
 * Auto-coding's choice among the terms whose match key equals the verbatim's: MedDRA codes to a current LLT only
 * (a non-current LLT is for old data), WHODrug to a drug name. Several candidates agreeing on one code (a name
 * listed twice) are one match; candidates naming different PTs or drugs are ambiguous, and ambiguity is left to a
 * coder, as is no match at all. Returns the chosen term or null.
 */
export function chooseAutoCode<T extends { level: string } & Pick<DictionaryTerm, 'code' | 'current' | 'parentCode'>>(
  kind: 'meddra' | 'whodrug',
  candidates: readonly T[],
): T | null {
  const eligible = candidates.filter((t) => (kind === 'meddra' ? t.level === 'llt' && t.current : t.level === 'drug'));
  if (eligible.length === 0) return null;
  // MedDRA: LLTs of one PT code alike (the PT is what is analysed); the first LLT by code stands for them.
  const targetOf = (t: T) => (kind === 'meddra' ? (t.parentCode ?? '') : t.code);
  const targets = new Set(eligible.map(targetOf));
  if (targets.size !== 1) return null;
  return [...eligible].sort((a, b) => a.code.localeCompare(b.code))[0]!;
}
