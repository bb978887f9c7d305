/**
 * The CRF engine on a generated 500-item form with 100 expressions (40 calculations, 40 showIf
 * conditions, 20 cross-field checks) plus triggers and a list group: the time one keystroke costs,
 * as a full re-evaluation and as the incremental one the renderer uses. Prints figures; no
 * thresholds here: compare runs over time. A frame at 60 Hz is 16.7 ms.
 */
import { evaluateForm, lintDefinition, type EvaluationContext, type FormState } from '../packages/core/src/index.js';
import { PER_SECTION, SECTIONS, generateForm, generatedValues } from './crf-form-500.js';

function generate() {
  const { definition, counts } = generateForm();
  console.log(
    `generated: ${SECTIONS * PER_SECTION} items, ${counts.calc} calc, ${counts.showIf} showIf, ${counts.checks} checks`,
  );
  return definition;
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

const values = generatedValues();
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
