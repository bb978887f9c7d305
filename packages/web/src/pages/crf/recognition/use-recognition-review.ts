import { useCallback, useState } from 'react';
import type { CrfNode } from '@ecrf/core';
import type { RecognitionOutcome } from './recognise-flow';
import { chosenOutcome, initialSelection, reviewRows, toggled, type ReviewRow } from './review-fills';

const NONE: ReadonlySet<string> = new Set();

/** The review step's state: the recognition shown, its rows and the items the nurse has ticked. */
export function useRecognitionReview() {
  const [state, setState] = useState<{ outcome: RecognitionOutcome; rows: ReviewRow[] } | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(NONE);

  const show = useCallback((outcome: RecognitionOutcome, scope: readonly CrfNode[]) => {
    const rows = reviewRows(outcome.filled, scope);
    setState({ outcome, rows });
    setSelected(initialSelection(rows));
  }, []);
  const clear = useCallback(() => {
    setState(null);
    setSelected(NONE);
  }, []);
  const toggle = useCallback(
    (itemName: string, checked: boolean) => setSelected((current) => toggled(current, itemName, checked)),
    [],
  );

  return {
    outcome: state?.outcome ?? null,
    rows: state?.rows ?? [],
    selected,
    show,
    clear,
    toggle,
    /** The recognition with the ticked items' values only. */
    chosen: () => (state ? chosenOutcome(state.outcome, selected) : null),
    /** The recognition with nothing filled: left by 重新识别 or 取消. */
    nothingChosen: () => (state ? chosenOutcome(state.outcome, NONE) : null),
  };
}
