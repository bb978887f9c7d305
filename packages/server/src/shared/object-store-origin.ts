import type { S3Config } from '../config.js';

/**
 * Where browsers reach the store: the endpoint's origin, or AWS's virtual-hosted address of the bucket. Apart
 * from s3-storage.ts so that the security headers name it without loading the AWS SDK at every start.
 */
export function objectStoreOrigin(config: S3Config): string {
  return config.endpoint
    ? new URL(config.endpoint).origin
    : `https://${config.bucket}.s3.${config.region}.amazonaws.com`;
}
