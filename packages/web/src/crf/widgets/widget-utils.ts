import type { CSSProperties } from 'react';
import { toNumber, type CrfNode } from '@ecrf/core';
import { CRF_T } from '../crf-texts';

/** The label of an item: its title, else the option's display title. */
export const titleOf = (node: CrfNode): string => node.title || node.option.title || '';

export const placeholderOf = (node: CrfNode, fallback: string = CRF_T.inputPlaceholder): string =>
  node.option.placeholder || fallback;

/** The display option width: a number is pixels; "60%" or "12em" are used as written. */
export function widthStyle(node: CrfNode): CSSProperties | undefined {
  const width = node.option.width;
  if (width === undefined || width === '') return undefined;
  const n = toNumber(width);
  if (n !== null) return n > 0 ? { width: n, maxWidth: '100%' } : undefined;
  const text = String(width).trim();
  return /^\d+(\.\d+)?(px|%|em|rem|vw)$/.test(text) ? { width: text, maxWidth: '100%' } : undefined;
}

const SAFE_VALUE = /^[#\w\s.,%()-]+$/;

/**
 * A title's showStyle may be a CSS declaration list (forms §3) such as "color: #099dad". Only plain
 * values are kept: no url(), no expressions, nothing that could fetch or run.
 */
export function parseStyleText(text: string | undefined): CSSProperties | undefined {
  if (!text || !text.includes(':')) return undefined;
  const style: Record<string, string> = {};
  for (const declaration of text.split(';')) {
    const at = declaration.indexOf(':');
    if (at < 0) continue;
    const property = declaration.slice(0, at).trim().toLowerCase();
    const value = declaration.slice(at + 1).trim();
    if (!/^[a-z-]+$/.test(property) || !SAFE_VALUE.test(value) || /url|expression/i.test(value)) continue;
    style[property.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  return Object.keys(style).length > 0 ? (style as CSSProperties) : undefined;
}

export const asText = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
