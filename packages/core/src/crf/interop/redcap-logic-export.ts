import type { Expr } from '../expression/index.js';
import { parseExpression, printExpression } from '../expression/index.js';
import { toPlainDecimal } from '../value-converter.js';
import {
  operandKind,
  redcapComparison,
  type OperandKind,
  type RedcapComparison,
  type RedcapFieldKind,
} from './redcap.js';

/**
 * Our expressions printed as REDCap logic, the inverse of translateRedcapLogic. Two rules make the
 * printed logic give our answers in REDCap:
 *
 * 1. What the importer wrote for a REDCap comparison (`not isblank(x) and x == "1"` for `[x] = '1'`,
 *    `isblank(d) or d < "2024-01-01"` for a date's `<` …) is recognised and printed back as that one
 *    comparison, so an imported form exports as it came and imports again unchanged.
 * 2. Anything else is printed by what it means. Our logic is three-valued (a comparison with a blank
 *    side is undecided, which a showIf reads as hidden); REDCap's is two-valued. A condition is printed
 *    as "it is true" (T) and, under a negation, "it is false" (F), each a plain REDCap condition, so
 *    `not (age >= 18)` becomes `[age] <> '' and [age] < 18`, never a REDCap answer of true on a blank.
 */
export interface LogicContext {
  /** The REDCap variable of one of our item names, or undefined when it has none (a list-group column read from outside). */
  variable(name: string): string | undefined;
  /** REDCap's reading of the field's blank, from its exported row (RedcapFieldKind). */
  kind(name: string): RedcapFieldKind;
  /** Checkbox items, whose options REDCap reads one by one as [x(code)]. */
  isCheckbox(name: string): boolean;
  /** The option codes of a checkbox item, as REDCap has them. */
  codes(name: string): string[];
  /** One of our option codes of a choice item as REDCap has it (redcapChoiceCodes); unchanged when it has no other. */
  code?(name: string, code: string): string;
  /** Says what was printed only approximately. */
  approximated(message: string): void;
}

export class UnprintableError extends Error {}

interface Piece {
  text: string;
  /** Binding strength: 1 or, 2 and, 4 comparison, 5 + -, 6 * /, 9 an operand. */
  prec: number;
}
type Cond = Piece | boolean;

const OUR_TO_REDCAP = { '==': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;
type ComparisonOp = keyof typeof OUR_TO_REDCAP;
const isComparison = (op: string): op is ComparisonOp => op in OUR_TO_REDCAP;
const COMPLEMENT: Record<RedcapComparison, RedcapComparison> = {
  '=': '<>',
  '<>': '=',
  '<': '>=',
  '<=': '>',
  '>': '<=',
  '>=': '<',
};
/** REDCap's datediff units; ours add weeks. */
const DATEDIFF_UNITS = new Set(['y', 'M', 'd', 'h', 'm', 's']);
const SAME_NAME_FUNCTIONS = new Set([
  'sum',
  'min',
  'max',
  'mean',
  'median',
  'abs',
  'sqrt',
  'isnumber',
  'year',
  'month',
  'day',
  'concat',
]);

const wrap = (piece: Piece, min: number) => (piece.prec < min ? `(${piece.text})` : piece.text);
const piece = (text: string, prec = 9): Piece => ({ text, prec });

export function quoteRedcap(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  throw new UnprintableError(`文字 ${text} 同时含有单引号和双引号，REDCap 逻辑无法书写`);
}

function and(a: Cond, b: Cond): Cond {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return piece(`${wrap(a, 2)} and ${wrap(b, 3)}`, 2);
}
function or(a: Cond, b: Cond): Cond {
  if (a === true || b === true) return true;
  if (a === false) return b;
  if (b === false) return a;
  return piece(`${wrap(a, 1)} or ${wrap(b, 2)}`, 1);
}
/** Conditions joined with and; an empty list holds. */
export function allOf(conditions: readonly Cond[]): Cond {
  return conditions.reduce<Cond>((acc, c) => and(acc, c), true);
}
export function anyOf(conditions: readonly Cond[]): Cond {
  return conditions.reduce<Cond>((acc, c) => or(acc, c), false);
}
export const condText = (c: Cond) => (c === true ? '' : c === false ? '1 = 0' : c.text);
export type { Cond };

export function redcapCondition(text: string, ctx: LogicContext): Cond {
  return new LogicPrinter(ctx).truth(parseExpression(text));
}

export function redcapCalculation(text: string, ctx: LogicContext): string {
  return new LogicPrinter(ctx).value(parseExpression(text)).text;
}

/** A REDCap comparison of a field (or [x(code)]) with a literal, for triggers and bounds. */
export function redcapAtom(left: string, op: RedcapComparison, literal: string | number): Piece {
  return piece(`${left} ${op} ${typeof literal === 'number' ? String(literal) : quoteRedcap(literal)}`, 4);
}

class LogicPrinter {
  constructor(private readonly ctx: LogicContext) {}

  private fieldKind = (name: string): RedcapFieldKind => this.ctx.kind(name);
  private kindOf = (e: Expr): OperandKind => operandKind(e, this.fieldKind);

  private variable(name: string): string {
    const variable = this.ctx.variable(name);
    if (!variable) throw new UnprintableError(`引用的题目 ${name} 在 REDCap 中没有对应字段`);
    return variable;
  }

  private code(name: string, code: string): string {
    return this.ctx.code?.(name, code) ?? code;
  }

  /** A literal compared with a choice item, as the code REDCap has for it when that is another. */
  private asCode(literal: Expr, field: Expr): Expr {
    if (field.kind !== 'identifier' || (literal.kind !== 'string' && literal.kind !== 'number')) return literal;
    const text = String(literal.value);
    const code = this.code(field.name, text);
    return code === text ? literal : { kind: 'string', value: code, start: literal.start };
  }

  private box(e: Expr | undefined): string | null {
    return e?.kind === 'identifier' && this.ctx.isCheckbox(e.name) ? e.name : null;
  }

  /** A checkbox is blank while no option is ticked. */
  private boxBlank(name: string, blank: boolean): Cond {
    const variable = this.variable(name);
    const ticks = this.ctx.codes(name).map((code) => piece(`[${variable}(${code})] = '${blank ? 0 : 1}'`, 4));
    return blank ? allOf(ticks) : anyOf(ticks);
  }

  /** A REDCap comparison the importer spelled out (rule 1), or null. */
  private spelled(e: Expr): { op: RedcapComparison; left: Expr; right: Expr } | null {
    if (e.kind === 'call' && e.callee === 'isblank' && this.box(e.args[0])) return null;
    if (e.kind === 'unary' && e.op === 'not' && e.operand.kind === 'call' && this.box(e.operand.args[0])) return null;
    if (e.kind === 'call' && e.callee === 'isblank' && e.args.length === 1) {
      return { op: '=', left: e.args[0]!, right: { kind: 'string', value: '', start: 0 } };
    }
    if (e.kind === 'unary' && e.op === 'not') {
      const inner = e.operand;
      if (inner.kind === 'call' && inner.callee === 'isblank' && inner.args.length === 1) {
        return { op: '<>', left: inner.args[0]!, right: { kind: 'string', value: '', start: 0 } };
      }
    }
    const target = printExpression(e);
    const candidates: Array<Extract<Expr, { kind: 'binary' }>> = [];
    const collect = (node: Expr, depth: number) => {
      if (depth > 6) return;
      if (node.kind === 'binary' && isComparison(node.op)) candidates.push(node);
      if (node.kind === 'logical') {
        collect(node.left, depth + 1);
        collect(node.right, depth + 1);
      } else if (node.kind === 'unary') collect(node.operand, depth + 1);
      else if (node.kind === 'call' && node.callee === 'if') collect(node.args[0]!, depth + 1);
    };
    collect(e, 0);
    for (const c of candidates) {
      // A checkbox has no REDCap comparison of its own ([c] is not a field there): its parts print one by one.
      if (this.box(c.left) || this.box(c.right)) continue;
      const ops: RedcapComparison[] = c.op === '==' ? ['=', '<>'] : [OUR_TO_REDCAP[c.op as ComparisonOp]];
      for (const op of ops) {
        const spelled = redcapComparison(op, c.left, c.right, this.kindOf(c.left), this.kindOf(c.right));
        if (printExpression(spelled) === target) return { op, left: c.left, right: c.right };
      }
    }
    return null;
  }

  private comparison(op: RedcapComparison, left: Expr, right: Expr): Piece {
    const [l, r] = [this.asCode(left, right), this.asCode(right, left)];
    return piece(`${wrap(this.value(l), 5)} ${op} ${wrap(this.value(r), 5)}`, 4);
  }

  /** REDCap's own negation of one of its comparisons (it has no `not`). */
  private negated(op: RedcapComparison, left: Expr, right: Expr): Cond {
    const kinds = [this.kindOf(left), this.kindOf(right)];
    const text = (k: OperandKind) => k !== 'number' && k !== 'computed';
    // = and <> are each other's negation, blanks included; so are < and >= between text and literals.
    if (op === '=' || op === '<>' || kinds.every(text)) return this.comparison(COMPLEMENT[op], left, right);
    const atom = this.comparison(op, left, right);
    return piece(`if(${atom.text}, false, true)`);
  }

  /** T: a REDCap condition that holds exactly where ours is true. */
  truth(e: Expr): Cond {
    const spelled = this.spelled(e);
    if (spelled) return this.comparison(spelled.op, spelled.left, spelled.right);
    switch (e.kind) {
      case 'boolean':
        return e.value;
      case 'number':
        return e.value !== 0;
      case 'string':
        return e.value !== '' && Number(e.value) !== 0;
      case 'null':
        return false;
      case 'logical':
        return e.op === 'and'
          ? and(this.truth(e.left), this.truth(e.right))
          : or(this.truth(e.left), this.truth(e.right));
      case 'unary':
        if (e.op === 'not') return this.falsity(e.operand);
        return this.truthOfValue(e);
      case 'binary':
        return isComparison(e.op) ? this.compare(e.op, e.left, e.right, true) : this.truthOfValue(e);
      case 'identifier':
        return this.truthOfValue(e);
      case 'call':
        switch (e.callee) {
          case 'checked':
            return this.value(e);
          case 'isblank': {
            const box = this.box(e.args[0]);
            return box ? this.boxBlank(box, true) : this.truthOfValue(e);
          }
          case 'if':
            return piece(
              `if(${condText(this.truth(e.args[0]!)) || 'true'}, ${this.bool(e.args[1]!)}, ${this.bool(e.args[2]!)})`,
            );
          case 'contains':
          case 'isnumber':
            return this.value(e);
          default:
            return this.truthOfValue(e);
        }
    }
  }

  /** F: a REDCap condition that holds exactly where ours is false (not where it is undecided). */
  falsity(e: Expr): Cond {
    const spelled = this.spelled(e);
    if (spelled) return this.negated(spelled.op, spelled.left, spelled.right);
    switch (e.kind) {
      case 'boolean':
        return !e.value;
      case 'number':
      case 'string':
      case 'null':
        return !this.truth(e);
      case 'logical':
        return e.op === 'and'
          ? or(this.falsity(e.left), this.falsity(e.right))
          : and(this.falsity(e.left), this.falsity(e.right));
      case 'unary':
        if (e.op === 'not') return this.truth(e.operand);
        return this.notTrue(e);
      case 'binary':
        return isComparison(e.op) ? this.compare(e.op, e.left, e.right, false) : this.notTrue(e);
      case 'call': {
        if (e.callee === 'checked') return piece(`${this.value(e).text} = 0`, 4);
        const box = e.callee === 'isblank' ? this.box(e.args[0]) : null;
        return box ? this.boxBlank(box, false) : this.notTrue(e);
      }
      case 'identifier':
        return this.notTrue(e);
    }
  }

  private bool(e: Expr): string {
    const c = this.truth(e);
    return typeof c === 'boolean' ? String(c) : c.text;
  }

  private notTrue(e: Expr): Cond {
    const t = this.truth(e);
    return typeof t === 'boolean' ? !t : piece(`if(${t.text}, false, true)`);
  }

  /** A value read as a condition: filled in and not zero, as our engine reads it. */
  private truthOfValue(e: Expr): Cond {
    const v = this.value(e);
    if (e.kind === 'identifier') return and(piece(`${v.text} <> ''`, 4), piece(`${v.text} <> 0`, 4));
    return piece(`${wrap(v, 5)} <> 0`, 4);
  }

  /**
   * One of our own comparisons. Ours is undecided while a side is blank; REDCap's answer for a blank
   * depends on the field (RedcapFieldKind), so each field that REDCap would not already make false is
   * guarded with `<> ''`.
   */
  private compare(op: ComparisonOp, left: Expr, right: Expr, wanted: boolean): Cond {
    const [kl, kr] = [this.kindOf(left), this.kindOf(right)];
    const checkbox = (e: Expr) => e.kind === 'identifier' && this.ctx.isCheckbox(e.name);
    const literalText = (e: Expr) => (e.kind === 'string' ? e.value : e.kind === 'number' ? String(e.value) : null);
    if ((op === '==' || op === '!=') && (checkbox(left) || checkbox(right))) {
      // A checkbox equals a code it holds (ours) or has that option ticked (REDCap).
      const [box, code] = checkbox(left) ? [left, right] : [right, left];
      const text = literalText(code);
      if (box.kind !== 'identifier' || text === null) throw new UnprintableError('多选题只能与选项代码比较');
      const option = this.code(box.name, text);
      // Ours: holds the code (true), filled in without it (false), nothing ticked (undecided).
      const has = piece(`[${this.variable(box.name)}(${option})] = '1'`, 4);
      if ((op === '==') === wanted) return has;
      return and(piece(`[${this.variable(box.name)}(${option})] = '0'`, 4), this.boxBlank(box.name, false));
    }
    const blankLiteral = (k: OperandKind) => k === 'blank';
    const isField = (e: Expr) => e.kind === 'identifier';
    const numeric = (k: OperandKind) => k === 'number' || k === 'computed' || k === 'neverBlank';
    const numberLiteral = (e: Expr) => e.kind === 'number' || (e.kind === 'unary' && e.operand.kind === 'number');
    const guard = (e: Expr, other: Expr, k: OperandKind, ko: OperandKind): Cond => {
      if (!isField(e)) return true;
      // A number field is NaN when blank, which makes REDCap's comparison with a number false already.
      if (k === 'number' && (numeric(ko) || numberLiteral(other))) return true;
      return piece(`${this.value(e).text} <> ''`, 4);
    };
    const guards = and(guard(left, right, kl, kr), guard(right, left, kr, kl));
    if (op === '==' || op === '!=') {
      const equal = op === '==';
      if (blankLiteral(kl) || blankLiteral(kr)) {
        // x == "" is true when x is blank and undecided otherwise; x != "" is false or undecided.
        if (blankLiteral(kl) && blankLiteral(kr)) return equal === wanted;
        const field = blankLiteral(kr) ? left : right;
        return equal === wanted ? piece(`${wrap(this.value(field), 5)} = ''`, 4) : false;
      }
      // REDCap's = is false on one blank and true on two, as our == is where it is decided.
      if (equal === wanted) return this.comparison('=', left, right);
      const filled = (e: Expr): Cond => (isField(e) ? piece(`${this.value(e).text} <> ''`, 4) : true);
      return and(and(filled(left), filled(right)), this.comparison('<>', left, right));
    }
    if (blankLiteral(kl) || blankLiteral(kr)) return false; // ordering against a blank is undecided
    const redcapOp = OUR_TO_REDCAP[op] as RedcapComparison;
    return and(guards, this.comparison(wanted ? redcapOp : COMPLEMENT[redcapOp], left, right));
  }

  /** V: a REDCap value. */
  value(e: Expr): Piece {
    switch (e.kind) {
      case 'number': {
        const text = toPlainDecimal(e.value) ?? String(e.value);
        return piece(text, text.startsWith('-') ? 7 : 9);
      }
      case 'string':
        return piece(quoteRedcap(e.value));
      case 'boolean':
        return piece(e.value ? '1' : '0');
      case 'null':
        return piece("''");
      case 'identifier':
        if (this.ctx.isCheckbox(e.name)) {
          throw new UnprintableError(`多选题 ${e.name} 在 REDCap 中只能按选项引用（[${e.name}(代码)]）`);
        }
        return piece(`[${this.variable(e.name)}]`);
      case 'unary': {
        if (e.op === '+') return this.value(e.operand);
        if (e.op === '-') {
          if (e.operand.kind === 'number') return piece(`-${this.value(e.operand).text}`, 7);
          // REDCap signs only numbers.
          return piece(`-1 * ${wrap(this.value(e.operand), 7)}`, 6);
        }
        return this.asValue(this.falsity(e.operand));
      }
      case 'logical':
        return this.asValue(this.truth(e));
      case 'binary': {
        if (isComparison(e.op)) return this.asValue(this.truth(e));
        const left = this.value(e.left);
        const right = this.value(e.right);
        switch (e.op) {
          case '+':
          case '-':
            return piece(`${wrap(left, 5)} ${e.op} ${wrap(right, 6)}`, 5);
          case '*':
          case '/':
            return piece(`${wrap(left, 6)} ${e.op} ${wrap(right, 7)}`, 6);
          case '%':
            return piece(`mod(${left.text}, ${right.text})`);
          case '^':
            // REDCap's exponent syntax: (base)^(exponent).
            return piece(`(${left.text})^(${right.text})`);
        }
        break;
      }
      case 'call':
        return this.call(e);
    }
    throw new UnprintableError('无法识别的表达式');
  }

  private asValue(c: Cond): Piece {
    return typeof c === 'boolean' ? piece(c ? '1' : '0') : c;
  }

  private dateArg(e: Expr): string {
    if (e.kind === 'call' && (e.callee === 'today' || e.callee === 'now') && e.args.length === 0) {
      return `'${e.callee}'`;
    }
    return this.value(e).text;
  }

  private call(e: Extract<Expr, { kind: 'call' }>): Piece {
    const args = e.args;
    const list = () => args.map((a) => this.value(a).text).join(', ');
    if (SAME_NAME_FUNCTIONS.has(e.callee)) {
      if (e.callee === 'abs' && args[0]?.kind === 'call' && args[0].callee === 'datediff') {
        return this.datediff(args[0], false);
      }
      return piece(`${e.callee}(${list()})`);
    }
    switch (e.callee) {
      case 'if':
        return piece(
          `if(${condText(this.truth(args[0]!)) || 'true'}, ${this.value(args[1]!).text}, ${this.value(args[2]!).text})`,
        );
      case 'round':
      case 'roundup':
      case 'rounddown':
        return piece(`${e.callee}(${this.value(args[0]!).text}, ${args[1] ? this.value(args[1]).text : '0'})`);
      case 'datediff':
        return this.datediff(e, true);
      case 'number':
        return this.value(args[0]!);
      case 'len':
        return piece(`length(${list()})`);
      case 'checked': {
        const [box, code] = args;
        if (box?.kind !== 'identifier' || (code?.kind !== 'string' && code?.kind !== 'number')) {
          throw new UnprintableError('checked() 的参数无法转换');
        }
        return piece(`[${this.variable(box.name)}(${this.code(box.name, String(code.value))})]`);
      }
      case 'contains': {
        const [box, code] = args;
        if (
          box?.kind === 'identifier' &&
          this.ctx.isCheckbox(box.name) &&
          (code?.kind === 'string' || code?.kind === 'number')
        ) {
          return piece(`[${this.variable(box.name)}(${this.code(box.name, String(code.value))})] = '1'`, 4);
        }
        return piece(`contains(${list()})`);
      }
      case 'isblank':
        return piece(`${wrap(this.value(args[0]!), 5)} = ''`, 4);
      case 'bmi':
        // Weight in kg, height in cm.
        return piece(`${wrap(this.value(args[0]!), 6)} / ((${wrap(this.value(args[1]!), 6)} / 100)^(2))`, 6);
      case 'age': {
        this.ctx.approximated('age() 已改写为 REDCap 的 datediff(…, "y")（按 365.2425 天一年计，与周岁可能差一天）');
        const at = args[1] ? this.dateArg(args[1]) : "'today'";
        return piece(`rounddown(datediff(${this.dateArg(args[0]!)}, ${at}, 'y', 'ymd', true), 0)`);
      }
      default:
        throw new UnprintableError(`函数 ${e.callee}() 在 REDCap 中没有对应`);
    }
  }

  /** Ours is signed (b − a); REDCap's is absolute unless asked. */
  private datediff(e: Extract<Expr, { kind: 'call' }>, signed: boolean): Piece {
    const [a, b, unitArg] = e.args;
    const unit = unitArg === undefined ? 'd' : unitArg.kind === 'string' ? unitArg.value : null;
    if (unit === null || (!DATEDIFF_UNITS.has(unit) && unit !== 'w')) {
      throw new UnprintableError('datediff 的单位无法转换');
    }
    const call = `datediff(${this.dateArg(a!)}, ${this.dateArg(b!)}, '${unit === 'w' ? 'd' : unit}', 'ymd'${signed ? ', true' : ''})`;
    // REDCap has no week unit.
    return unit === 'w' ? piece(`${call} / 7`, 6) : piece(call);
  }
}
