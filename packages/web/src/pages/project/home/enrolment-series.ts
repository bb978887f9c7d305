/** Months of enrolment in order, every month shown: the server only names months with patients. */
export function enrolmentSeries(
  enrolment: ReadonlyArray<{ month: string; count: number }>,
  currentMonth: string,
  months = 12,
): Array<{ month: string; count: number }> {
  const counts = new Map(enrolment.map((e) => [e.month, e.count]));
  const [year, month] = currentMonth.split('-').map(Number) as [number, number];
  const out: Array<{ month: string; count: number }> = [];
  for (let back = months - 1; back >= 0; back -= 1) {
    const index = year * 12 + (month - 1) - back;
    const key = `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
    out.push({ month: key, count: counts.get(key) ?? 0 });
  }
  // Enrolment older than the window would be lost silently; start earlier instead.
  const first = enrolment.map((e) => e.month).sort()[0];
  if (first && first < out[0]!.month) {
    return enrolmentSeries(enrolment, currentMonth, months + monthsBetween(first, out[0]!.month));
  }
  return out;
}

function monthsBetween(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return ty * 12 + tm - (fy * 12 + fm);
}

/**
 * Patients enrolled up to the end of each month of the axis. The server names the running total of months
 * with enrolment only; a month without any carries the total of the month before it.
 */
export function cumulativeSeries(
  cumulative: ReadonlyArray<{ month: string; total: number }>,
  months: ReadonlyArray<string>,
): Array<{ month: string; total: number }> {
  const known = [...cumulative].sort((a, b) => a.month.localeCompare(b.month));
  let i = 0;
  let total = 0;
  return months.map((month) => {
    while (i < known.length && known[i]!.month <= month) {
      total = known[i]!.total;
      i += 1;
    }
    return { month, total };
  });
}
