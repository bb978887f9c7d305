import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json.js';
import { AppError } from '../../shared/app-error.js';
import type { SaveInput } from './form-write.js';

/**
 * What a save asks for, as SHA-256 (hex) over its canonical JSON: stored with the request id it is applied under,
 * so a retry (the same body, sent again because the answer was lost) gets the first answer, and the same id sent
 * with anything else is refused rather than answered 保存成功 with nothing saved. The body as parsed is hashed
 * (JSON and form-data alike; key order, an absent and a null field the same), the request id itself excluded.
 */
export function saveRequestHash(input: SaveInput): string {
  const asked = {
    subjectRecordId: input.subjectRecordId,
    crfId: input.crfId,
    crfDataRecordId: input.crfDataRecordId ?? null,
    version: input.version ?? null,
    values: input.values,
    submit: Boolean(input.submit),
    reason: input.reason ?? null,
    followRecordCrfId: input.followRecordCrfId ?? null,
    // Only a save that sends marks hashes them: the hashes stored before marks existed still match their retries.
    ...(input.missing ? { missing: input.missing } : {}),
  };
  return createHash('sha256').update(canonicalJson(asked)).digest('hex');
}

/** A claim from before request hashes were stored (null) cannot tell: it is taken as the same request. */
export function checkSameRequest(storedHash: string | null, input: SaveInput) {
  if (storedHash !== null && storedHash !== saveRequestHash(input)) {
    throw AppError.conflict('crf.request_changed', 'requestId 已用于内容不同的保存，本次内容未保存');
  }
}
