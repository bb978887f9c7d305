import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  evaluateExpression,
  ExpressionError,
  parseExpression,
  printExpression,
  MAX_EXPRESSION_DEPTH,
  type Value,
} from './index.js';

const clock = { today: '2024-06-15', now: '2024-06-15 09:30:00' };
const run = (source: string, values: Record<string, unknown> = {}) => evaluateExpression(source, values, clock);

describe('expression language', () => {
  it.each<[string, Record<string, unknown>, Value]>([
    ['1 + 2 * 3', {}, 7],
    ['(1 + 2) * 3', {}, 9],
    ['2 ^ 3 ^ 2', {}, 512],
    ['-2 ^ 2', {}, -4],
    ['10 % 4', {}, 2],
    ['7 / 0', {}, null],
    ['a + b', { a: '1.5', b: 2 }, 3.5],
    ['a + b', { a: '', b: 2 }, null],
    ['a + 1', { a: 'abc' }, null],
    ['sex == 1', { sex: '1' }, true],
    ['sex = "1"', { sex: 1 }, true],
    ['sex <> 1', { sex: '2' }, true],
    ['sex == 1', { sex: '' }, null],
    ['sex == ""', { sex: '' }, true],
    ['sex != ""', { sex: '' }, false],
    ['x > 5 and y < 3', { x: 6, y: 2 }, true],
    ['x > 5 AND y < 3', { x: 6, y: '' }, null],
    ['x > 5 and y < 3', { x: 4, y: '' }, false],
    ['x > 5 or y < 3', { x: '', y: 2 }, true],
    ['not x', { x: 0 }, true],
    ['!(a >= 3)', { a: 3 }, false],
    ['"2024-01-02" < "2024-10-01"', {}, true],
    ['sym == "2"', { sym: ['1', '2'] }, true],
    ['checked(sym, "3")', { sym: '1,3' }, 1],
    ['checked(sym, 3)', { sym: ['1', '2'] }, 0],
    ['contains(note, "痛")', { note: '头痛' }, true],
    ['if(a > 1, "big", "small")', { a: 2 }, 'big'],
    ['if(a > 1, "big", "small")', { a: '' }, 'small'],
    ['sum(a, b, c)', { a: 1, b: '', c: '2' }, 3],
    ['sum(a)', { a: '' }, null],
    ['sum(dose)', { dose: ['1', '2.5', ''] }, 3.5],
    ['mean(1, 2, 3, 4)', {}, 2.5],
    ['median(3, 1, 2)', {}, 2],
    ['min(3, x)', { x: 1 }, 1],
    ['max(3, x)', { x: 1 }, 3],
    ['count(a)', { a: ['x', '', 'y'] }, 2],
    ['round(2.345, 2)', {}, 2.35],
    ['round(1.005, 2)', {}, 1.01],
    ['roundup(2.341, 2)', {}, 2.35],
    ['rounddown(2.349, 2)', {}, 2.34],
    ['round(-2.5)', {}, -3],
    ['abs(-3)', {}, 3],
    ['sqrt(-1)', {}, null],
    ['round(bmi(w, h), 1)', { w: '70', h: '175' }, 22.9],
    ['bmi(w, h)', { w: '70', h: '' }, null],
    ['age("1990-06-16")', {}, 33],
    ['age("1990-06-15")', {}, 34],
    ['age(dob, visit)', { dob: '2000-02-29', visit: '2001-02-28' }, 0],
    ['datediff("2024-01-01", "2024-01-31")', {}, 30],
    ['datediff("2024-01-31", "2024-01-01", "d")', {}, -30],
    ['datediff("2024-01-01 08:00", "2024-01-01 10:30", "h")', {}, 2.5],
    ['datediff(d, "today", "d")', { d: '2024-06-10' }, 5],
    ['datediff(d, today())', { d: '2024-UK-UK' }, null],
    ['today()', {}, '2024-06-15'],
    ['now()', {}, '2024-06-15 09:30:00'],
    ['year(d) + month(d) + day(d)', { d: '2024-03-05' }, 2032],
    ['isblank(x)', {}, true],
    ['isblank(x)', { x: [] }, true],
    ['isnumber("1e3")', {}, true],
    ['len("血压")', {}, 2],
    ['concat("a", 1, null)', {}, 'a1'],
    ['收缩压 - 舒张压', { 收缩压: 120, 舒张压: 80 }, 40],
    ['TRUE and not FALSE', {}, true],
    ['x == null', { x: '' }, true],
    ['1e400 * 10', {}, null],
  ])('evaluates %s', (source, values, expected) => {
    expect(run(source, values)).toEqual(expected);
  });

  it.each([
    ['', 'syntax'],
    ['1 +', 'syntax'],
    ['(1 + 2', 'syntax'],
    ['a b', 'syntax'],
    ['1 < 2 < 3', 'syntax'],
    ['"open', 'syntax'],
    ['a.b', 'syntax'],
    ['a[0]', 'syntax'],
    ['x = y; z', 'syntax'],
    ['eval("1")', 'unknown_function'],
    ['constructor()', 'unknown_function'],
    ['__proto__()', 'unknown_function'],
    ['if(1, 2)', 'arity'],
    ['round()', 'arity'],
    ['and(1)', 'syntax'],
    ['form("手术记录")', 'arity'],
    ['form("手术记录", "op_at", 1)', 'arity'],
    ['form("手术记录", op_at)', 'syntax'],
    ['form(title, "op_at")', 'syntax'],
    ['form("手术" + "记录", "op_at")', 'syntax'],
    ['form("", "op_at")', 'syntax'],
    ['1 + '.repeat(3000) + '1', 'too_long'],
  ])('refuses %j with a typed error', (source, code) => {
    let error: unknown;
    try {
      compileExpression(source);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as ExpressionError).code).toBe(code);
    expect((error as ExpressionError).message).toMatch(/表达式|函数/);
  });

  it('refuses nesting deeper than the limit instead of overflowing the stack', () => {
    const deep = '('.repeat(MAX_EXPRESSION_DEPTH + 1) + '1' + ')'.repeat(MAX_EXPRESSION_DEPTH + 1);
    expect(() => compileExpression(deep)).toThrow(ExpressionError);
    expect(() => compileExpression('-'.repeat(500) + '1')).toThrow(ExpressionError);
    expect(() => compileExpression('not '.repeat(500) + '1')).toThrow(ExpressionError);
    expect(() => compileExpression('2^'.repeat(500) + '1')).toThrow(ExpressionError);
  });

  it('extracts the items an expression reads, not the functions it calls', () => {
    expect(compileExpression('if(a > 1, sum(b, c), round(a))').dependencies).toEqual(['a', 'b', 'c']);
    expect(compileExpression('today()').dependencies).toEqual([]);
  });

  it('form(): reads an item of another form of the same patient, named by string literals', () => {
    const compiled = compileExpression(
      'if(isblank(FORM("手术记录", "op_at")), -1, datediff(date(form("手术记录", "op_at")), visit, "d"))',
    );
    expect(compiled.dependencies).toEqual(['visit']);
    expect(compiled.formReferences).toEqual([{ form: '手术记录', item: 'op_at' }]);
    const env = {
      get: (name: string) => (name === 'visit' ? '2024-06-01' : null),
      today: () => clock.today,
      now: () => clock.now,
      form: (title: string, item: string) => (title === '手术记录' && item === 'op_at' ? '2024-05-31 23:50:00' : null),
    };
    expect(compiled.evaluate(env)).toBe(1);
    // Without the other forms (an environment that cannot read them) the reference is blank.
    expect(run('isblank(form("手术记录", "op_at"))')).toBe(true);
    expect(run('date("2024-05-31 23:50:00")')).toBe('2024-05-31');
    expect(run('date("2024-UK-UK")')).toBeNull();
  });

  it('compiles once per source (cache)', () => {
    expect(compileExpression('weight / 2')).toBe(compileExpression('weight / 2'));
  });

  it('reaches nothing inherited: prototype names are plain missing items', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype']) {
      expect(run(name)).toBeNull();
      expect(run(`isblank(${name})`)).toBe(true);
    }
    expect(run('constructor', { constructor: '3' })).toBe('3');
  });

  it('prints a tree that parses back to the same tree', () => {
    const sources = [
      'a - (b - c)',
      '(a - b) - c',
      '2 ^ (3 ^ 2)',
      '(2 ^ 3) ^ 2',
      '-(a + b)',
      'not (a and b) or c',
      'if(a = "x\\"y", 1, 2)',
      '(a > 1) == (b > 1)',
    ];
    for (const source of sources) {
      const ast = parseExpression(source);
      const printed = printExpression(ast);
      expect(stripPositions(parseExpression(printed))).toEqual(stripPositions(ast));
      expect(run(printed, { a: 5, b: 2, c: 1 })).toEqual(run(source, { a: 5, b: 2, c: 1 }));
    }
  });
});

function stripPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripPositions);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'start')
        .map(([k, v]) => [k, stripPositions(v)]),
    );
  }
  return value;
}

const isValue = (v: unknown): boolean =>
  v === null ||
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  (typeof v === 'number' && Number.isFinite(v)) ||
  (Array.isArray(v) && v.every(isValue));

describe('expression language (properties)', () => {
  const tokens = [
    'a',
    'b',
    'constructor',
    '__proto__',
    'toString',
    '1',
    '0',
    '2.5',
    '"x"',
    "'y'",
    '(',
    ')',
    ',',
    '+',
    '-',
    '*',
    '/',
    '%',
    '^',
    '==',
    '=',
    '!=',
    '<>',
    '<',
    '<=',
    '>',
    '>=',
    'and',
    'or',
    'not',
    '!',
    'if',
    'sum',
    'round',
    'age',
    'datediff',
    'form',
    'date',
    'today',
    'null',
    'true',
    '.',
    '[',
    ']',
    '{',
    '}',
    ';',
    '`',
    '\\',
    '$',
  ];
  const scalar = fc.oneof(
    fc.constant(null),
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constantFrom('2024-01-01', '1990-UK-UK', 'today'),
  );
  const scope = fc.dictionary(
    fc.constantFrom('a', 'b', 'constructor', '__proto__', 'toString'),
    fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.object()),
  );

  it('no input makes it throw anything but an ExpressionError, and results are plain values', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fc.constantFrom(...tokens), { maxLength: 25 }).map((t) => t.join(' ')),
        ),
        scope,
        (source, values) => {
          let compiled;
          try {
            compiled = compileExpression(source);
          } catch (error) {
            expect(error).toBeInstanceOf(ExpressionError);
            return;
          }
          const result = compiled.evaluate({
            get: (name) => (Object.hasOwn(values, name) ? (values as Record<string, Value>)[name]! : null),
            today: () => clock.today,
            now: () => clock.now,
          });
          expect(isValue(result)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('arithmetic agrees with JavaScript on finite numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 }), (x, y) => {
        expect(run('x + y * 2 - x', { x, y })).toBe(x + y * 2 - x);
        expect(run('x < y', { x, y })).toBe(x < y);
        expect(run('x == y', { x: String(x), y })).toBe(x === y);
      }),
    );
  });
});
