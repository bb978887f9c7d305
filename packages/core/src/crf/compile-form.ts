import { isRowType, isValueType, type CrfDefinition, type CrfNode, type CrossCheck } from './crf-definition.schema.js';
import { compileExpression, ExpressionError, type CompiledExpression, type FormReference } from './expression/index.js';
import { itemRule, type FieldRule } from './field-rules.js';
import { choicesOf, indexList } from './options.js';
import { parseTriggers, type Trigger } from './visibility.js';
import { impliedRules } from './item-types/registry.js';

/** A problem found while compiling a definition; the linter reports these with the node path. */
export interface DefinitionIssue {
  severity: 'error' | 'warning';
  /** Where in the definition, e.g. children[1].children[0].option.calc */
  path: string;
  /** The item name, when the node has one. */
  name?: string | undefined;
  message: string;
}

export class CrfDefinitionError extends Error {
  override readonly name = 'CrfDefinitionError';
  constructor(readonly issues: readonly DefinitionIssue[]) {
    super(`CRF 定义有 ${issues.length} 处错误：${issues.map(formatIssue).join('；')}`);
  }
}

export function formatIssue(issue: DefinitionIssue): string {
  return `${issue.path}${issue.name ? `（${issue.name}）` : ''}：${issue.message}`;
}

export interface CompiledCheck {
  check: CrossCheck;
  expression: CompiledExpression;
}

export interface NodeInfo {
  index: number;
  node: CrfNode;
  path: string;
  /** Stable key of the node's state: its name, or its path for unnamed display nodes. */
  key: string;
  parent: NodeInfo | null;
  /** The list group or table whose rows hold this node, if any: then it is evaluated row by row. */
  rowOwner: NodeInfo | null;
  triggers: { trig: Trigger | null; trigex: Trigger[] };
  showIf: CompiledExpression | null;
  calc: CompiledExpression | null;
  checks: CompiledCheck[];
  rule: FieldRule;
  additionIndexes: number[];
  /** Names this node's visibility and value read. */
  valueDeps: string[];
  /** Names its cross-field checks read. */
  checkDeps: string[];
}

/** What evaluates together: a node outside rows, or a list group/table with everything inside it. */
export interface Unit {
  id: number;
  root: NodeInfo;
  /** For a row unit, the nodes inside the rows in evaluation order; otherwise empty. */
  rowMembers: NodeInfo[];
  names: string[];
  /** Units whose visibility or value read this one (dependency graph edges). */
  successors: Set<Unit>;
  /** Units whose cross-field checks read this one. */
  checkReaders: Set<Unit>;
}

export interface CompiledForm {
  definition: CrfDefinition;
  nodes: NodeInfo[];
  byName: ReadonlyMap<string, NodeInfo>;
  /** Units in an order where everything a unit reads comes before it. */
  order: Unit[];
  unitOfName: ReadonlyMap<string, Unit>;
  /** Items of other forms the expressions read through form(), each once. */
  formReferences: readonly FormReference[];
  issues: DefinitionIssue[];
}

const childPath = (base: string, i: number) => `${base}${base ? '.' : ''}children[${i}]`;

function compileSource(
  source: string | undefined,
  where: string,
  info: { name?: string | undefined },
  issues: DefinitionIssue[],
): CompiledExpression | null {
  if (source === undefined || source.trim() === '') return null;
  try {
    return compileExpression(source);
  } catch (error) {
    const message = error instanceof ExpressionError ? error.message : String(error);
    issues.push({ severity: 'error', path: where, name: info.name, message: `${message}：${source}` });
    return null;
  }
}

/**
 * Flattens the tree, compiles every expression once, and orders evaluation along the dependency
 * graph. Never throws: every problem becomes an issue, so the linter can report them all at once.
 */
export function compileForm(definition: CrfDefinition): CompiledForm {
  const issues: DefinitionIssue[] = [];
  const nodes: NodeInfo[] = [];
  const byName = new Map<string, NodeInfo>();

  const rulesByTarget = new Map<string, { formula: string; path: string }>();
  (definition.crfRules ?? []).forEach((rule, i) =>
    rulesByTarget.set(rule.target, { formula: rule.formula, path: `crfRules[${i}].formula` }),
  );
  // The items an item type calculates (a spine tool fills the items its options name); crfRules win.
  for (const rule of impliedRules(definition.children)) {
    if (!rulesByTarget.has(rule.target)) rulesByTarget.set(rule.target, rule);
  }

  const visit = (node: CrfNode, path: string, parent: NodeInfo | null, rowOwner: NodeInfo | null) => {
    const name = node.name || undefined;
    const option = node.option;
    const checks: CompiledCheck[] = [];
    (option.checks ?? []).forEach((check, i) => {
      const expression = compileSource(check.expression, `${path}.option.checks[${i}].expression`, { name }, issues);
      if (expression) checks.push({ check, expression });
    });
    const ruleFormula = name ? rulesByTarget.get(name) : undefined;
    let calc = compileSource(option.calc, `${path}.option.calc`, { name }, issues);
    if (ruleFormula) {
      if (calc) {
        issues.push({
          severity: 'error',
          path: ruleFormula.path,
          name,
          message: `题目已有 calc，不能再由 crfRules 计算`,
        });
      } else calc = compileSource(ruleFormula.formula, ruleFormula.path, { name }, issues);
    }
    const triggers = parseTriggers(option);
    const showIf = compileSource(option.showIf, `${path}.option.showIf`, { name }, issues);
    const info: NodeInfo = {
      index: nodes.length,
      node,
      path,
      key: node.name || path,
      parent,
      rowOwner,
      triggers,
      showIf,
      calc,
      checks,
      rule: itemRule(node),
      additionIndexes: indexList(option.additionIndex),
      valueDeps: [
        ...new Set([
          ...(triggers.trig ? [triggers.trig.name] : []),
          ...triggers.trigex.map((t) => t.name),
          ...(showIf?.dependencies ?? []),
          ...(calc?.dependencies ?? []),
        ]),
      ],
      checkDeps: [...new Set(checks.flatMap((c) => c.expression.dependencies))],
    };
    nodes.push(info);
    if (node.name) {
      if (byName.has(node.name)) {
        issues.push({
          severity: 'error',
          path,
          name,
          message: `题目名称重复：${node.name}（与 ${byName.get(node.name)!.path} 相同）`,
        });
      } else {
        byName.set(node.name, info);
      }
    }
    const innerOwner = isRowType(node.type) ? info : rowOwner;
    if (isRowType(node.type) && rowOwner) {
      issues.push({ severity: 'error', path, name, message: '列表组或表格不能嵌套在另一个列表组或表格中' });
    }
    node.children.forEach((child, i) => visit(child, childPath(path, i), info, innerOwner));
  };
  definition.children.forEach((child, i) => visit(child, childPath('', i), null, null));

  for (const target of rulesByTarget.keys()) {
    if (!byName.has(target)) {
      issues.push({
        severity: 'error',
        path: rulesByTarget.get(target)!.path.replace('.formula', '.target'),
        message: `crfRules 的目标题目不存在：${target}`,
      });
    }
  }

  checkReferences(nodes, byName, issues);
  const formReferences = collectFormReferences(definition, nodes, issues);

  // Units: a row container with all its descendants evaluates as one.
  const units: Unit[] = [];
  const unitOfNode = new Map<NodeInfo, Unit>();
  for (const info of nodes) {
    if (info.rowOwner) {
      const unit = unitOfNode.get(info.rowOwner)!;
      unitOfNode.set(info, unit);
      if (info.node.name) unit.names.push(info.node.name);
      continue;
    }
    const unit: Unit = {
      id: units.length,
      root: info,
      rowMembers: [],
      names: info.node.name ? [info.node.name] : [],
      successors: new Set(),
      checkReaders: new Set(),
    };
    units.push(unit);
    unitOfNode.set(info, unit);
  }
  const unitOfName = new Map<string, Unit>();
  for (const [name, info] of byName) unitOfName.set(name, unitOfNode.get(info)!);

  const predecessors = new Map<Unit, Set<Unit>>(units.map((u) => [u, new Set<Unit>()]));
  const link = (from: Unit, to: Unit) => {
    if (from === to) return;
    from.successors.add(to);
    predecessors.get(to)!.add(from);
  };
  for (const info of nodes) {
    const unit = unitOfNode.get(info)!;
    if (info.parent) link(unitOfNode.get(info.parent)!, unit);
    for (const dep of info.valueDeps) {
      const source = unitOfName.get(dep);
      if (source) link(source, unit);
    }
    for (const dep of info.checkDeps) {
      const source = unitOfName.get(dep);
      if (source && source !== unit) source.checkReaders.add(unit);
    }
  }

  const order = topologicalOrder(
    units,
    (u) => [...predecessors.get(u)!].sort((a, b) => a.id - b.id),
    (cycle) => {
      const names = cycle.map((u) => u.root.node.name || u.root.path);
      issues.push({
        severity: 'error',
        path: cycle[0]!.root.path,
        name: cycle[0]!.root.node.name || undefined,
        message: `计算或显示条件存在循环依赖：${names.join(' → ')}`,
      });
    },
  );

  // Inside each row unit, order the members along their own dependencies.
  for (const unit of units) {
    if (!isRowType(unit.root.node.type)) continue;
    const members = nodes.filter((n) => n.rowOwner === unit.root);
    const memberSet = new Set(members);
    const local = (name: string) => {
      const info = byName.get(name);
      return info && memberSet.has(info) ? info : null;
    };
    unit.rowMembers = topologicalOrder(
      members,
      (m) => [
        ...(m.parent && memberSet.has(m.parent) ? [m.parent] : []),
        ...m.valueDeps.flatMap((d) => {
          const info = local(d);
          return info && info !== m ? [info] : [];
        }),
      ],
      (cycle) => {
        issues.push({
          severity: 'error',
          path: cycle[0]!.path,
          name: cycle[0]!.node.name || undefined,
          message: `计算或显示条件存在循环依赖：${cycle.map((m) => m.node.name || m.path).join(' → ')}`,
        });
      },
    );
    const selfRef = members.find((m) => m.valueDeps.includes(m.node.name) && m.node.name !== '');
    if (selfRef) {
      issues.push({
        severity: 'error',
        path: selfRef.path,
        name: selfRef.node.name,
        message: `计算或显示条件引用了题目自身：${selfRef.node.name}`,
      });
    }
  }
  for (const info of nodes) {
    if (!info.rowOwner && info.node.name && info.valueDeps.includes(info.node.name)) {
      issues.push({
        severity: 'error',
        path: info.path,
        name: info.node.name,
        message: `计算或显示条件引用了题目自身：${info.node.name}`,
      });
    }
  }

  return { definition, nodes, byName, order, unitOfName, formReferences, issues };
}

/**
 * The other forms' items the expressions read. A form naming itself is refused: its own items are
 * read by name, and "the newest record of this form" would be the record being edited, as stored.
 */
function collectFormReferences(definition: CrfDefinition, nodes: NodeInfo[], issues: DefinitionIssue[]) {
  const out = new Map<string, FormReference>();
  for (const info of nodes) {
    const expressions: Array<[string, CompiledExpression | null]> = [
      ['showIf', info.showIf],
      ['calc', info.calc],
      ...info.checks.map((c, i): [string, CompiledExpression] => [`checks[${i}].expression`, c.expression]),
    ];
    for (const [field, compiled] of expressions) {
      for (const ref of compiled?.formReferences ?? []) {
        if (ref.form === definition.title) {
          issues.push({
            severity: 'error',
            path: `${info.path}.option.${field}`,
            name: info.node.name || undefined,
            message: `form() 不能引用本表单“${ref.form}”，本表单的题目请直接写名称：${ref.item}`,
          });
          continue;
        }
        out.set(`${ref.form}\u0000${ref.item}`, ref);
      }
    }
  }
  return [...out.values()];
}

/** Depth-first topological order that keeps document order where the graph allows; reports each cycle once. */
function topologicalOrder<T>(items: readonly T[], before: (item: T) => T[], onCycle: (cycle: T[]) => void): T[] {
  const state = new Map<T, 'visiting' | 'done'>();
  const out: T[] = [];
  const stack: T[] = [];
  const visit = (item: T) => {
    const s = state.get(item);
    if (s === 'done') return;
    if (s === 'visiting') {
      onCycle([...stack.slice(stack.indexOf(item)), item]);
      return;
    }
    state.set(item, 'visiting');
    stack.push(item);
    for (const dep of before(item)) visit(dep);
    stack.pop();
    state.set(item, 'done');
    out.push(item);
  };
  for (const item of items) visit(item);
  return out;
}

function checkReferences(nodes: NodeInfo[], byName: ReadonlyMap<string, NodeInfo>, issues: DefinitionIssue[]) {
  for (const info of nodes) {
    const { node, path } = info;
    const name = node.name || undefined;
    const triggers = [
      ...(info.triggers.trig ? [{ t: info.triggers.trig, field: 'trig' }] : []),
      ...info.triggers.trigex.map((t) => ({ t, field: 'trigex' })),
    ];
    for (const { t, field } of triggers) {
      const source = byName.get(t.name);
      if (!source) {
        issues.push({
          severity: 'error',
          path: `${path}.option.${field}`,
          name,
          message: `触发条件引用的题目不存在：${t.name}`,
        });
        continue;
      }
      const count = choicesOf(source.node.option).length;
      if (count === 0) {
        issues.push({
          severity: 'error',
          path: `${path}.option.${field}`,
          name,
          message: `触发条件引用的题目 ${t.name} 没有选项`,
        });
        continue;
      }
      if (field === 'trig' && t.indexes.length === 0) {
        issues.push({
          severity: 'error',
          path: `${path}.option.tindex`,
          name,
          message: `触发条件缺少选项序号（tindex）`,
        });
      }
      for (const index of t.indexes) {
        if (!Number.isInteger(index) || index < 0 || index >= count) {
          issues.push({
            severity: 'error',
            path: `${path}.option.${field === 'trig' ? 'tindex' : 'trigex'}`,
            name,
            message: `触发条件的选项序号 ${Number.isNaN(index) ? '无效' : index} 超出题目 ${t.name} 的选项范围（0 到 ${count - 1}）`,
          });
        }
      }
      if (source.rowOwner && source.rowOwner !== info.rowOwner) {
        issues.push({
          severity: 'error',
          path: `${path}.option.${field}`,
          name,
          message: `触发条件不能引用其他列表组中的题目：${t.name}`,
        });
      }
    }
    const expressions: Array<[string, CompiledExpression | null]> = [
      ['showIf', info.showIf],
      ['calc', info.calc],
      ...info.checks.map((c, i): [string, CompiledExpression] => [`checks[${i}].expression`, c.expression]),
    ];
    for (const [field, compiled] of expressions) {
      for (const dep of compiled?.dependencies ?? []) {
        if (!byName.has(dep)) {
          issues.push({
            severity: 'error',
            path: `${path}.option.${field}`,
            name,
            message: `表达式引用的题目不存在：${dep}`,
          });
        }
      }
    }
    if (info.calc && !isValueType(node.type)) {
      issues.push({
        severity: 'error',
        path: `${path}.option.calc`,
        name,
        message: `${node.type} 类型的节点没有值，不能计算`,
      });
    }
    if (info.calc && isRowType(node.type)) {
      issues.push({
        severity: 'error',
        path: `${path}.option.calc`,
        name,
        message: `${node.type} 类型的题目不能由表达式计算`,
      });
    }
  }
}
