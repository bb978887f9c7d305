/**
 * `npm run audit:verify`: walks every study's audit hash chain with the server's own settings
 * (DATA_DIR or DATABASE_URL), prints each study's head and the first broken link, exit code 1 on a break.
 * The embedded database can be checked only while the server is stopped (the API answers while it runs).
 */
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { chainReportText, verifyAuditChains } from './modules/audit/audit-chain.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const database = await openDatabase(config);
  try {
    const report = await verifyAuditChains(database.db);
    console.log(chainReportText(report));
    process.exitCode = report.ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
