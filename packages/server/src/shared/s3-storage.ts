import { Readable } from 'node:stream';
import type { S3Config } from '../config.js';
import type { DirectUploads, FileStorage } from './file-storage.js';
import { objectStoreOrigin } from './object-store-origin.js';

export { objectStoreOrigin };

/**
 * Uploaded files in an S3-compatible object store (AWS S3, MinIO, Ceph, OSS/COS in S3 mode): the same four
 * calls as the local disk, plus what the external network mode needs (forms §7): a presigned form post the
 * browser sends the bytes with, and short-lived read addresses.
 */
export async function s3FileStorage(config: S3Config): Promise<FileStorage & { direct: DirectUploads }> {
  // The AWS SDK (≈ 0.2 s of a start) loads only where a store is configured.
  const [
    { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException },
    { Upload },
    { createPresignedPost },
    { getSignedUrl },
  ] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
    import('@aws-sdk/s3-presigned-post'),
    import('@aws-sdk/s3-request-presigner'),
  ]);
  const missing = (err: unknown) =>
    err instanceof S3ServiceException &&
    (err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');
  const client = new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    // A self-hosted store is addressed by path (http://minio:9000/bucket/key): no wildcard DNS needed.
    forcePathStyle: config.endpoint !== undefined,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // Checksums only where S3 requires them: stores other than AWS do not all read the SDK's trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = config.bucket;

  const head = async (key: string) => {
    try {
      const res = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
      return { size: res.ContentLength ?? 0, contentType: res.ContentType ?? '' };
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  };

  return {
    async put(key, data) {
      // S3 keeps an object whole or not at all; a multipart upload streams without holding a video in memory.
      await new Upload({ client, params: { Bucket, Key: key, Body: data } }).done();
    },
    async get(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return res.Body instanceof Readable ? res.Body : null;
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async exists(key) {
      return (await head(key)) !== null;
    },
    direct: {
      async presignPost({ key, maxBytes, contentTypePrefix, expiresSeconds }) {
        const { url, fields } = await createPresignedPost(client, {
          Bucket,
          Key: key,
          Expires: expiresSeconds,
          Conditions: [
            ['content-length-range', 1, maxBytes],
            ['starts-with', '$Content-Type', contentTypePrefix],
          ],
        });
        return { url, fields };
      },
      presignGet(key, serve, expiresSeconds) {
        return getSignedUrl(
          client,
          new GetObjectCommand({
            Bucket,
            Key: key,
            ResponseContentType: serve.contentType,
            ResponseContentDisposition: serve.contentDisposition,
          }),
          { expiresIn: expiresSeconds },
        );
      },
      head,
    },
  };
}
