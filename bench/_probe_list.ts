import { wrapPostgres } from '../packages/server/src/db/client.js';
import { sql } from 'drizzle-orm';
const database = wrapPostgres('postgres://postgres@127.0.0.1:5432/edc_probe');
const db = database.db;
for (const q of [
  sql`explain analyze select count(*) from subject_records inner join subjects on subjects.id = subject_records.subject_id where subject_records.study_id = 1 and subject_records.deleted_at is null`,
  sql`explain analyze select subjects.*, subject_records.id from subjects inner join subject_records on subject_records.subject_id = subjects.id left join departments on departments.dept_id = subjects.dept_id left join users on users.user_id = subjects.created_by where subject_records.study_id = 1 and subject_records.deleted_at is null order by subjects.created_at desc, subjects.id desc limit 10 offset 0`,
]) {
  for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const r = (await db.execute(q)) as any;
  if (i === 2) console.log(r.rows.map((x: any) => x['QUERY PLAN']).join('\n'), (performance.now() - t0).toFixed(1));
  }
}
await database.close();
