/** The expression language's syntax tree. Positions are 0-based offsets into the source. */
export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '^' | '==' | '!=' | '<' | '<=' | '>' | '>=';
export type LogicalOperator = 'and' | 'or';
export type UnaryOperator = '-' | '+' | 'not';

export type Expr =
  | { kind: 'number'; value: number; start: number }
  | { kind: 'string'; value: string; start: number }
  | { kind: 'boolean'; value: boolean; start: number }
  | { kind: 'null'; start: number }
  | { kind: 'identifier'; name: string; start: number }
  | { kind: 'unary'; op: UnaryOperator; operand: Expr; start: number }
  | { kind: 'binary'; op: BinaryOperator; left: Expr; right: Expr; start: number }
  | { kind: 'logical'; op: LogicalOperator; left: Expr; right: Expr; start: number }
  | { kind: 'call'; callee: string; args: Expr[]; start: number };

/** What an expression can produce: checkbox values and list-group columns are arrays. */
export type Value = number | string | boolean | null | Value[];
