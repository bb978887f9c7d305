export * from './ast.js';
export * from './errors.js';
export {
  EXPRESSION_OPERATORS,
  parseExpression,
  tokenize,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
} from './parser.js';
export { FUNCTIONS, isBlank, toNum, truthy, type ExpressionEnv, type FunctionSpec } from './functions.js';
export {
  compileExpression,
  evaluateExpression,
  FORM_FUNCTION,
  recordEnv,
  toValue,
  type CompiledExpression,
  type FormReference,
} from './evaluate.js';
export { printExpression } from './print.js';
