import {
  compileExpression,
  tokenize as ourTokenize,
  ExpressionError,
  parseExpression,
  printExpression,
  type Expr,
} from '../expression/index.js';
import { translateRedcapLogic, type RedcapFieldKind } from './redcap.js';
import { parse, tokenize, Untranslatable } from './odm-formal-grammar.js';

/**
 * ODM FormalExpressions (in ConditionDef and MethodDef) to and from our expression language (§4).
 *
 * Contexts we read:
 * - `ecrf`: what exportOdm writes, our language with each item written as its ItemOID; our blank logic.
 * - `REDCap…`: REDCap logic (`[var] = '1'`), translated by translateRedcapLogic with REDCap's blank logic.
 * - anything else (`XPath`, OpenClinica and other plain-text styles): one grammar covering both —
 *   = != <> < <= > >= and XPath's eq ne lt le gt ge, and/or/not(), + - * / and XPath's div and mod,
 *   parentheses, numbers and strings, and item references as an ItemOID (`I_AGE`, `IT.AGE`), a dotted
 *   path ending in one (`SE_1.F_VS.IG_VS.I_AGE`), `$I_AGE`, an XPath ending in
 *   `ItemData[@ItemOID='I_AGE']/@Value`, or an ItemDef Name. As in XPath, where a missing ItemData is an
 *   empty node-set, a comparison that reads a blank item is false (not undecided): it is written with
 *   isblank() guards.
 */
export type FormalContext = 'ecrf' | 'redcap' | 'xpath';

/** The context our exports write; documented in docs/crf-format.md §9.4. */
export const ECRF_CONTEXT = 'ecrf';

export function contextOf(attribute: string | undefined): FormalContext {
  const value = (attribute ?? '').trim().toLowerCase();
  if (value === ECRF_CONTEXT) return 'ecrf';
  if (value.startsWith('redcap')) return 'redcap';
  return 'xpath';
}

/** How references in a FormalExpression find the imported items of the form. */
export interface ItemResolver {
  /** The item name a reference means in this form (ItemOID, dotted path, ItemDef Name), or undefined. */
  resolve(reference: string): string | undefined;
  /** Every ItemOID of the file, longest first, so that OIDs with dots or hyphens read as one token. */
  oids: readonly string[];
  /**
   * Whether an item of this form has the name, as REDCap's logic translation wants it: `number` for
   * numeric items and choices with numeric codes (REDCap orders a blank below every number), `text`
   * for the others, undefined when there is no such item.
   */
  kindOf(name: string): RedcapFieldKind | undefined;
}

export type LogicTranslation = { ok: true; expression: string } | { ok: false; reason: string };

const isCall = (tokens: readonly { type: string; value: unknown }[], i: number) =>
  tokens[i + 1]?.type === 'op' && tokens[i + 1]?.value === '(';

/**
 * Our own context: the text is our language verbatim, so only the references are swapped back from
 * ItemOIDs to names and every other character is kept; the definition comes back exactly as written.
 */
function importEcrf(text: string, items: ItemResolver): string {
  const tokens = tokenize(text, 'ecrf', items.oids);
  const missing = new Set<string>();
  let out = '';
  let last = 0;
  tokens.forEach((t, i) => {
    if (t.type !== 'ref' && t.type !== 'name') return;
    if (t.type === 'name' && (KEYWORDS.has(t.value.toLowerCase()) || isCall(tokens, i))) return;
    const name = items.resolve(t.value);
    if (name === undefined) missing.add(t.value);
    out += text.slice(last, t.at) + (name ?? t.value);
    last = t.end;
  });
  if (missing.size > 0) throw new Untranslatable(`引用的题目不在本表单中：${[...missing].join(', ')}`);
  out += text.slice(last);
  compileExpression(out);
  return out;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);

function translate(text: string, context: FormalContext, items: ItemResolver): string {
  if (context === 'ecrf') return importEcrf(text, items);
  const source = text.replace(/\s+/g, ' ').trim();
  if (source === '') throw new Untranslatable('FormalExpression 为空');
  if (context === 'redcap') {
    // [ref] may be an ItemOID or an ItemDef Name; translateRedcapLogic wants our item names.
    const renamed = source.replace(/\[([^\]()]+)(\([^)]*\))?\]/g, (whole, ref: string, code: string | undefined) => {
      const name = items.resolve(ref.trim());
      return name === undefined ? whole : `[${name}${code ?? ''}]`;
    });
    const translated = translateRedcapLogic(renamed, (v) => items.kindOf(v));
    if (!translated.ok) throw new Untranslatable(translated.reason);
    return translated.expression;
  }
  const expression = printExpression(parse(source, items));
  compileExpression(expression);
  return expression;
}

const attempt = (run: () => string): LogicTranslation => {
  try {
    return { ok: true, expression: run() };
  } catch (error) {
    if (error instanceof Untranslatable || error instanceof ExpressionError) {
      return { ok: false, reason: error.message };
    }
    throw error;
  }
};

/** A MethodDef's FormalExpression as our calc. */
export function importMethod(text: string, context: FormalContext, items: ItemResolver): LogicTranslation {
  return attempt(() => translate(text, context, items));
}

/**
 * A ConditionDef's FormalExpression as our showIf. The condition is a collection exception (when it
 * holds, the item is not collected), so showIf is its negation; our own `not (…)` is unwrapped as written.
 */
export function importCondition(text: string, context: FormalContext, items: ItemResolver): LogicTranslation {
  return attempt(() => {
    const condition = translate(text, context, items);
    if (context === 'ecrf') {
      const wrapped = /^not \((.*)\)$/s.exec(condition);
      if (wrapped && balanced(wrapped[1]!)) return wrapped[1]!;
    }
    return printExpression(negate(parseExpression(condition)));
  });
}

/** Whether the parentheses of an expression pair up inside it (strings left aside). */
function balanced(source: string): boolean {
  let depth = 0;
  for (const t of ourTokenize(source)) {
    if (t.type !== 'operator') continue;
    if (t.value === '(') depth += 1;
    if (t.value === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** The logical negation, without stacking `not not`. */
function negate(node: Expr): Expr {
  return node.kind === 'unary' && node.op === 'not'
    ? node.operand
    : { kind: 'unary', op: 'not', operand: node, start: node.start };
}

/**
 * Our expression as an `ecrf` FormalExpression: the text as written, each item name replaced by its
 * ItemOID. Null when the expression does not parse or names something without an OID.
 */
export function exportMethod(expression: string, oidOf: (name: string) => string | undefined): string | null {
  let tokens: ReturnType<typeof ourTokenize>;
  try {
    parseExpression(expression);
    tokens = ourTokenize(expression);
  } catch {
    return null;
  }
  let out = '';
  let last = 0;
  for (const [i, t] of tokens.entries()) {
    if (t.type !== 'identifier' || KEYWORDS.has(t.value.toLowerCase())) continue;
    if (tokens[i + 1]?.type === 'operator' && tokens[i + 1]?.value === '(') continue;
    const oid = oidOf(t.value);
    if (oid === undefined) return null;
    out += expression.slice(last, t.start) + oid;
    last = t.start + t.text.length;
  }
  return out + expression.slice(last);
}

/** A showIf as the ConditionDef of a collection exception: `not (…)` around the ItemOID form. */
export function exportCondition(showIf: string, oidOf: (name: string) => string | undefined): string | null {
  const text = exportMethod(showIf, oidOf);
  return text === null ? null : `not (${text})`;
}
