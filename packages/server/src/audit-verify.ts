/**
 * `npm run audit:verify`: walks every study's audit hash chain with the server's own settings
 * (DATA_DIR or DATABASE_URL), prints each study's head and the first broken link, then the lock points (every study
 * lock with the chain head it recorded, and whether the chain still holds that hash there); exit code 1 on a break,
 * a lock point that does not hold, or a change to patient data recorded while the study was locked.
 * The embedded database can be checked only while the server is stopped (the API answers while it runs).
 */
import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';
import { chainReportText, verifyAuditChains } from './modules/audit/audit-chain.js';
import { lockPoints, lockPointsOk, lockPointsText } from './modules/locks/lock-points.js';

async function main() {
  const config = loadConfigOrExit();
  const database = await openDatabase(config);
  try {
    const report = await verifyAuditChains(database.db);
    console.log(chainReportText(report));
    const points = await lockPoints(database.db, report);
    console.log(lockPointsText(points));
    process.exitCode = report.ok && lockPointsOk(points) ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
