import { simulateRandomization, randomizationConfigSchema } from './src/index.js';
const factors = Array.from({length: 6}, (_, i) => ({ key: 'f'+i, label: 'f'+i, source: 'dept', levels: Array.from({length: 3}, (_, j) => ({code: 'L'+j, label: 'L'+j, values: [String(j)]})) }));
const arms = Array.from({length: 6}, (_, i) => ({code: 'A'+i, label: 'a', ratio: 1 + (i % 2)}));
for (const method of ['minimization', 'stratified_block', 'simple'] as const) {
  const c = randomizationConfigSchema.parse({ method, arms, blinded: true, blockSizes: [9, 18], factors: method === 'simple' ? [] : method === 'stratified_block' ? factors.slice(0, 3) : factors, minimization: { imbalance: 'variance', p: 0.8 } });
  const t = Date.now(); simulateRandomization(c, { patients: 1000, runs: 2000, seed: 'x' }); console.log(method, Date.now() - t, 'ms');
}
const c2 = randomizationConfigSchema.parse({ method: 'minimization', arms: arms.slice(0,2).map(a=>({...a, ratio: 1})), blinded: true, factors: factors.slice(0,2), minimization: { imbalance: 'range', p: 0.8 } });
let t = Date.now(); simulateRandomization(c2, { patients: 200, runs: 10000, seed: 'x' }); console.log('min 2x2', Date.now() - t, 'ms');
