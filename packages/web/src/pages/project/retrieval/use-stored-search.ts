import { useEffect, useState } from 'react';
import type { SearchColumn, SearchConditions } from '@ecrf/core';
import { columnValue, emptyDraft, type Draft } from './search-draft';

export const DEFAULT_COLUMNS: SearchColumn[] = [
  { kind: 'patient', field: 'gender' },
  { kind: 'patient', field: 'age' },
];

/** The search last run: what the result table shows, `run` counting runs so that running it again refetches. */
export interface Submitted {
  conditions: SearchConditions;
  columns: SearchColumn[];
  run: number;
}

interface Stored {
  draft: Draft;
  columns: string[];
  submitted: Submitted | null;
}
const storageKey = (studyId: number | null) => `retrieval:${studyId}`;
function readStored(studyId: number | null): Stored | null {
  try {
    const text = sessionStorage.getItem(storageKey(studyId));
    return text ? (JSON.parse(text) as Stored) : null;
  } catch {
    return null;
  }
}
function writeStored(studyId: number | null, value: Stored) {
  if (studyId === null) return;
  try {
    sessionStorage.setItem(storageKey(studyId), JSON.stringify(value));
  } catch {
    // A full or refused storage only loses the convenience of coming back to the search.
  }
}

/** The conditions, the chosen columns and the search last run, kept for the browser tab's session, per study. */
export function useStoredSearch(studyId: number | null) {
  // The search survives a visit to a casebook and back.
  const [stored] = useState(() => readStored(studyId));
  const [draft, setDraft] = useState<Draft>(() => stored?.draft ?? emptyDraft());
  const [columns, setColumns] = useState<string[]>(() => stored?.columns ?? DEFAULT_COLUMNS.map(columnValue));
  const [submitted, setSubmitted] = useState<Submitted | null>(() => stored?.submitted ?? null);
  useEffect(() => writeStored(studyId, { draft, columns, submitted }), [studyId, draft, columns, submitted]);
  return { draft, setDraft, columns, setColumns, submitted, setSubmitted };
}
