import type { ComponentType } from 'react';
import type { CrfNode, ItemState, NumberLike } from '@ecrf/core';

export type ControlStatus = 'error' | 'warning' | undefined;

/** A value widget: it shows one value and reports the user's edits; the engine judges them. */
export interface ControlProps {
  node: CrfNode;
  id: string;
  /** The item's value after the engine's rules (canonical shape, or the text as typed). */
  value: unknown;
  disabled: boolean;
  status: ControlStatus;
  onChange: (value: unknown) => void;
  /** Validation runs on blur and on change (forms §5): blur marks the item touched. */
  onBlur: () => void;
  /** Set in table cells, where there is no visible label. */
  ariaLabel?: string | undefined;
  /** The id of the visible label, for controls that are groups rather than inputs (choices, uploads). */
  labelId?: string | undefined;
}

/** A block widget: containers, rows, titles and links, which lay out or show rather than hold one value. */
export interface BlockProps {
  node: CrfNode;
  state: ItemState;
  itemKey: string;
  /** Items per row of the enclosing section (forms §9); children inherit it. */
  crfCols: NumberLike | undefined;
}

/**
 * What draws an item type in the form: a control for a value item (beside its label), or a block for a container,
 * rows, a title or a link (the whole line). One of the two, per type (crf/widget-registry.tsx).
 */
export type WidgetRegistration =
  | { readonly control: ComponentType<ControlProps>; readonly block?: never }
  | { readonly block: ComponentType<BlockProps>; readonly control?: never };
