import { roundNumber } from '../crf/value-converter.js';

/**
 * Rounds a computed measurement for display, half away from zero. Geometry leaves binary noise on values that are
 * exact in decimal (an angle of 32.5° comes out as 32.49999999999998), so the value is first rounded to 9
 * decimals, far below what a film can show, and then to `digits`. NaN and infinities pass through.
 */
export function roundMeasurement(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  return roundNumber(roundNumber(value, 9, 'R'), digits, 'R');
}
