/**
 * The CRF engine on a generated 500-item form with 100 expressions (40 calculations, 40 showIf
 * conditions, 20 cross-field checks) plus triggers and a list group: the time one keystroke costs,
 * as a full re-evaluation and as the incremental one the renderer uses. Prints figures; no
 * thresholds here: compare runs over time. A frame at 60 Hz is 16.7 ms.
 */
import {
  evaluateForm,
  lintDefinition,
  type CrfDefinition,
  type CrfNode,
  type EvaluationContext,
  type FormState,
} from '../packages/core/src/index.js';

const SECTIONS = 10;
const PER_SECTION = 50;

function generate(): CrfDefinition {
  const sections: CrfNode[] = [];
  let calc = 0;
  let showIf = 0;
  let checks = 0;
  for (let s = 0; s < SECTIONS; s += 1) {
    const children: CrfNode[] = [];
    for (let i = 0; i < PER_SECTION; i += 1) {
      const n = s * PER_SECTION + i;
      const name = `q${n}`;
      const option: CrfNode['option'] = {};
      let type: CrfNode['type'] = 'real';
      if (i % 10 === 0) {
        type = 'radio';
        option.optionsValue = '1,2,3';
        option.optionsText = '是,否,不详';
      } else if (i % 10 === 5) {
        type = 'date';
        option.showStyle = 'pastTime';
      } else if (i % 10 === 9) {
        type = 'input';
        option.validate = { max: 50 };
      } else {
        option.validate = { min: 0, max: 1000, precision: 2 };
        option.required = 1;
      }
      if (type === 'real' && i % 10 === 3 && calc < 40) {
        option.calc = `round(q${n - 2} * 2 + q${n - 1} / 3, 2)`;
        option.readOnly = 1;
        calc += 1;
      } else if (type === 'real' && i % 10 === 7 && showIf < 40) {
        option.showIf = `q${n - 1} > 10 and q${n - 6} != 3`;
        showIf += 1;
      } else if (type === 'real' && i % 10 === 8 && checks < 20 && s % 2 === 0) {
        option.checks = [
          { expression: `q${n} >= q${n - 7}`, message: '应不小于前值', severity: i % 20 === 8 ? 'warning' : 'error' },
        ];
        checks += 1;
      } else if (type === 'real' && i % 10 === 4) {
        option.trig = `q${n - 4}`;
        option.tindex = '0';
      }
      children.push({ name, title: `题目${n}`, type, option, children: [] });
    }
    sections.push({ name: `s${s}`, title: `第${s + 1}部分`, type: 'section', option: {}, children });
  }
  const counts = { calc, showIf, checks };
  console.log(
    `generated: ${SECTIONS * PER_SECTION} items, ${counts.calc} calc, ${counts.showIf} showIf, ${counts.checks} checks`,
  );
  return { title: '性能测试表单', option: {}, children: sections };
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return `p50 ${at(0.5).toFixed(3)} ms, p95 ${at(0.95).toFixed(3)} ms, max ${sorted[sorted.length - 1]!.toFixed(3)} ms (${samples.length} runs)`;
}

const t0 = performance.now();
const lint = lintDefinition(generate());
const t1 = performance.now();
if (!lint.ok) {
  console.error(lint.errors.slice(0, 5));
  process.exit(1);
}
const definition = lint.definition!;
const context: EvaluationContext = { now: new Date(), gender: 'female' };

const values: Record<string, unknown> = {};
for (let n = 0; n < SECTIONS * PER_SECTION; n += 1) {
  const i = n % PER_SECTION;
  values[`q${n}`] = i % 10 === 0 ? '1' : i % 10 === 5 ? '2020-01-01' : i % 10 === 9 ? '备注' : String((n * 7) % 100);
}
const t2 = performance.now();
let state: FormState = evaluateForm(definition, values, context);
const t3 = performance.now();
console.log(`lint + compile (first upload): ${(t1 - t0).toFixed(2)} ms; first evaluation: ${(t3 - t2).toFixed(2)} ms`);

const RUNS = 2000;
// One keystroke: an input that several calculations, conditions and checks read.
const keystrokeItem = 'q251';
const full: number[] = [];
const incremental: number[] = [];
const leaf: number[] = [];
for (let r = 0; r < RUNS + 200; r += 1) {
  const next = { ...values, [keystrokeItem]: String(r % 97) };
  let start = performance.now();
  evaluateForm(definition, next, context);
  const fullMs = performance.now() - start;
  start = performance.now();
  state = evaluateForm(definition, next, context, { previous: state, changed: [keystrokeItem] });
  const incMs = performance.now() - start;
  const leafNext = { ...next, q499: `备注${r}` };
  start = performance.now();
  state = evaluateForm(definition, leafNext, context, { previous: state, changed: ['q499'] });
  const leafMs = performance.now() - start;
  if (r >= 200) {
    full.push(fullMs);
    incremental.push(incMs);
    leaf.push(leafMs);
  }
}
console.log(`keystroke, full re-evaluation of 500 items:        ${stats(full)}`);
console.log(`keystroke, incremental (item read by expressions):  ${stats(incremental)}`);
console.log(`keystroke, incremental (item nothing reads):        ${stats(leaf)}`);
console.log(`errors ${state.errors.length}, warnings ${state.warnings.length}`);
