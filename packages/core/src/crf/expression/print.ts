import type { Expr } from './ast.js';

const PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  not: 3,
  '==': 4,
  '!=': 4,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '%': 6,
  neg: 7,
  '^': 8,
};

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function precedenceOf(node: Expr): number {
  switch (node.kind) {
    case 'logical':
    case 'binary':
      return PRECEDENCE[node.op]!;
    case 'unary':
      return node.op === 'not' ? PRECEDENCE.not! : PRECEDENCE.neg!;
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
    case 'identifier':
    case 'call':
      return 9;
  }
}

/** Prints a tree back as source in our canonical spelling (used by importers that rewrite expressions). */
export function printExpression(node: Expr): string {
  const wrap = (child: Expr, min: number) => {
    const text = printExpression(child);
    return precedenceOf(child) < min ? `(${text})` : text;
  };
  switch (node.kind) {
    case 'number':
      return String(node.value);
    case 'string':
      return quote(node.value);
    case 'boolean':
      return String(node.value);
    case 'null':
      return 'null';
    case 'identifier':
      return node.name;
    case 'unary':
      return node.op === 'not'
        ? `not ${wrap(node.operand, PRECEDENCE.not!)}`
        : `${node.op}${wrap(node.operand, PRECEDENCE.neg!)}`;
    case 'logical':
    case 'binary': {
      const p = PRECEDENCE[node.op]!;
      // Left-associative operators need parentheses on the right at equal precedence; ^ is the reverse.
      const rightAssoc = node.op === '^';
      const comparison = p === 4;
      const left = wrap(node.left, rightAssoc || comparison ? p + 1 : p);
      const right = wrap(node.right, rightAssoc ? p : p + 1);
      return `${left} ${node.op} ${right}`;
    }
    case 'call':
      return `${node.callee}(${node.args.map((arg) => printExpression(arg)).join(', ')})`;
  }
}
