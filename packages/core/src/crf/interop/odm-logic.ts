import { formatIssue } from '../compile-form.js';
import { isNumericType, type CrfDefinition, type CrfNode } from '../crf-definition.schema.js';
import { lintDefinition } from '../linter.js';
import { choicesOf } from '../options.js';
import { showIfWithoutTriggers, triggerCondition } from '../trigger-expression.js';
import { contextOf, importCondition, importMethod, type ItemResolver } from './odm-expression.js';
import { attr, content, list, type XmlNode } from './odm-xml.js';

/** An ItemRef or ItemGroupRef that names a ConditionDef or a MethodDef. */
export interface PendingLogic {
  node: CrfNode;
  /** The ItemOID or ItemGroupOID, for the warnings. */
  field: string;
  group: boolean;
  condition?: string | undefined;
  method?: string | undefined;
}

export interface OdmLogicSource {
  conditions: ReadonlyMap<string, XmlNode>;
  methods: ReadonlyMap<string, XmlNode>;
  /** Every ItemOID and ItemGroupOID of the file, longest first. */
  oids: readonly string[];
  /** The form's imported names by ItemOID / ItemGroupOID and by ItemDef Name. */
  nameOfOid: ReadonlyMap<string, string>;
  nameOfDefName: ReadonlyMap<string, string>;
}

const filled = (s: unknown): s is string => typeof s === 'string' && s.trim() !== '';

/** The FormalExpression we read: ours first, then REDCap's, then the first one there is. */
function formalExpressionOf(def: XmlNode): { context: string | undefined; text: string } | undefined {
  const expressions = list(def, 'FormalExpression').map((e) => ({
    context: typeof e === 'object' ? attr(e, 'Context') : undefined,
    text: content(e),
  }));
  return (
    expressions.find((e) => contextOf(e.context) === 'ecrf') ??
    expressions.find((e) => contextOf(e.context) === 'redcap') ??
    expressions[0]
  );
}

/** The node a linter path such as children[2].children[0].option.calc points into. */
function nodeAt(definition: CrfDefinition, path: string): CrfNode | undefined {
  let children = definition.children;
  let node: CrfNode | undefined;
  const steps = /^((?:\.?children\[\d+\])+)/.exec(path)?.[1] ?? '';
  for (const [, index] of steps.matchAll(/children\[(\d+)\]/g)) {
    node = children[Number(index)];
    if (!node) return undefined;
    children = node.children;
  }
  return node;
}

/**
 * ConditionDefs and MethodDefs into showIf and calc, once every item of the form has its final name.
 * What cannot be expressed is left out and reported on its field; nothing is dropped silently.
 */
export function applyOdmLogic(
  definition: CrfDefinition,
  pending: readonly PendingLogic[],
  source: OdmLogicSource,
  warn: (field: string, message: string) => void,
): void {
  const nodeOfName = new Map<string, CrfNode>();
  const collect = (nodes: readonly CrfNode[]) =>
    nodes.forEach((n) => {
      if (n.name && !nodeOfName.has(n.name)) nodeOfName.set(n.name, n);
      collect(n.children);
    });
  collect(definition.children);
  const resolver: ItemResolver = {
    oids: source.oids,
    kindOf(name) {
      const node = nodeOfName.get(name);
      if (!node) return undefined;
      const choices = choicesOf(node.option);
      const numericChoices = choices.length > 0 && choices.every((c) => /^-?\d+(\.\d+)?$/.test(c.value));
      return isNumericType(node.type) || numericChoices ? 'number' : 'text';
    },
    resolve(reference) {
      const direct = source.nameOfOid.get(reference) ?? source.nameOfDefName.get(reference);
      if (direct !== undefined) return direct;
      // OpenClinica and others qualify an OID with its event, form and group: SE_1.F_VS.IG_VS.I_AGE.
      for (let dot = reference.indexOf('.'); dot >= 0; dot = reference.indexOf('.', dot + 1)) {
        const tail = reference.slice(dot + 1);
        const found = source.nameOfOid.get(tail) ?? source.nameOfDefName.get(tail);
        if (found !== undefined) return found;
      }
      return nodeOfName.has(reference) ? reference : undefined;
    },
  };
  // What was translated, to take back if the linter refuses it; the showIf our own attribute had stays.
  const translatedNodes = new Map<CrfNode, { field: string; showIf?: { own: string | undefined }; calc?: true }>();
  const note = (node: CrfNode, field: string, part: { showIf?: { own: string | undefined }; calc?: true }) =>
    translatedNodes.set(node, { ...translatedNodes.get(node), field, ...part });
  for (const { node, field, group, condition, method } of pending) {
    const subject = group ? '该分组' : '该题';
    if (condition !== undefined) {
      const def = source.conditions.get(condition);
      const expression = def && formalExpressionOf(def);
      if (!def) warn(field, `显示条件 ConditionDef ${condition} 不存在，${subject}将始终显示`);
      else if (!expression) {
        warn(field, `显示条件 ConditionDef ${condition} 没有 FormalExpression，无法转换，${subject}将始终显示`);
      } else {
        const result = importCondition(expression.text, contextOf(expression.context), resolver);
        // Our own file: the item keeps its triggers in its options, and the condition repeats them.
        const triggers = triggerCondition(node.option, (name) => nodeOfName.get(name));
        const shown = result.ok ? showIfWithoutTriggers(result.expression, triggers) : undefined;
        if (result.ok && shown !== undefined) {
          const own = node.option.showIf;
          const imported = shown ?? result.expression;
          node.option.showIf = filled(own) ? `(${own}) and (${imported})` : imported;
          note(node, field, { showIf: { own } });
        } else if (!result.ok) {
          warn(
            field,
            `显示条件 ConditionDef ${condition} 无法转换，${subject}将始终显示（${result.reason}）：${expression.text}`,
          );
        }
      }
    }
    if (method !== undefined) {
      const def = source.methods.get(method);
      const expression = def && formalExpressionOf(def);
      const type = attr(def, 'Type');
      if (!def) warn(field, `计算方法 MethodDef ${method} 不存在，该题不会自动计算`);
      else if (type !== undefined && type !== 'Computation') {
        warn(field, `计算方法 MethodDef ${method} 的类型是 ${type}，只有 Computation 能转换为计算公式`);
      } else if (!expression) {
        warn(field, `计算方法 MethodDef ${method} 没有 FormalExpression，无法转换，该题不会自动计算`);
      } else {
        const result = importMethod(expression.text, contextOf(expression.context), resolver);
        if (result.ok) {
          node.option.calc = result.expression;
          note(node, field, { calc: true });
        } else {
          warn(
            field,
            `计算方法 MethodDef ${method} 无法转换，该题不会自动计算（${result.reason}）：${expression.text}`,
          );
        }
      }
    }
  }
  // Logic that translated but breaks the form (a cycle, a reference to itself, a calc on a group)
  // is taken back with the linter's reason, so that the rest of the form still imports.
  for (let round = 0; round < 5 && translatedNodes.size > 0; round += 1) {
    let changed = false;
    for (const issue of lintDefinition(definition).errors) {
      const field = /\.option\.(showIf|calc)$/.exec(issue.path)?.[1];
      if (field === undefined && !/^(\.?children\[\d+\])+$/.test(issue.path)) continue;
      const node = nodeAt(definition, issue.path);
      const entry = node && translatedNodes.get(node);
      if (!node || !entry) continue;
      if (entry.showIf && field !== 'calc') {
        if (entry.showIf.own === undefined) delete node.option.showIf;
        else node.option.showIf = entry.showIf.own;
      }
      if (entry.calc && field !== 'showIf') delete node.option.calc;
      translatedNodes.delete(node);
      changed = true;
      warn(entry.field, `ODM 中的显示条件或计算方法导入后不能使用，已去掉（${formatIssue(issue)}）`);
    }
    if (!changed) break;
  }
}
