import path from 'node:path';
import { z } from 'zod';
import { PrivateNetworksError, parsePrivateNetworks } from './modules/data-import/public-address.js';
import { DataKeyError, parseDataKey } from './shared/field-crypto.js';
import { REPOSITORY_ROOT } from './server-paths.js';

const onOff = z.enum(['on', 'off']);
const seconds = (fallback: number) =>
  z.coerce
    .number()
    .int('must be whole seconds')
    .min(1, 'must be 1 to 86400')
    .max(86_400, 'must be 1 to 86400')
    .default(fallback);

/**
 * The folder with the root package.json. `npm start` runs the server from packages/server, so the default data
 * directory is anchored here, where the README says `./data` is; an explicit relative DATA_DIR still means the
 * caller's working directory, as any path given on a command line does.
 */
export { REPOSITORY_ROOT };

const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().min(1).optional(),
  /** An ONNX model of spine landmarks (docs/spine-tools.md); unset: the Cobb tool is semi-automatic. */
  SPINE_MODEL: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  DATABASE_APP_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /** Connections of one app server to PostgreSQL (docs/deployment.md); unused by the embedded database. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1, 'must be 1 to 500').max(500, 'must be 1 to 500').default(10),
  DATABASE_APP_ROLE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case PostgreSQL identifier')
    .default('edc_app'),
  /** Lets the application's PostgreSQL login be a superuser or able to become the owner (docs/deployment.md). */
  EDC_ALLOW_OWNER_LOGIN: z.enum(['true', 'false']).default('false'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  EDC_ADMIN_PASSWORD: z.string().min(6, 'must be 6 to 19 characters').max(19, 'must be 6 to 19 characters').optional(),
  EDC_CAPTCHA: onOff.default('on'),
  EDC_DEMO: onOff.default('on'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  EDC_DATA_KEY: z
    .string()
    .superRefine((value, check) => {
      try {
        parseDataKey(value);
      } catch (err) {
        if (!(err instanceof DataKeyError)) throw err;
        check.addIssue({ code: 'custom', message: err.message });
      }
    })
    .optional(),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().optional(),
  EDC_API_DOCS: z.enum(['public', 'admin']).default('admin'),
  EDC_IMAGE_URL_HOSTS: z.string().optional(),
  /** CIDR ranges of the intranet an allow-listed image host may resolve to (docs/deployment.md); unset: none. */
  EDC_IMAGE_URL_PRIVATE_NETWORKS: z
    .string()
    .transform((value, check) => {
      try {
        return parsePrivateNetworks(value);
      } catch (err) {
        if (!(err instanceof PrivateNetworksError)) throw err;
        check.addIssue({ code: 'custom', message: err.message });
        return z.NEVER;
      }
    })
    .optional(),
  /** HTTP timeouts in seconds (docs/deployment.md): a request's headers, a whole ordinary request, an upload, an idle socket. */
  HTTP_HEADERS_TIMEOUT: seconds(30),
  HTTP_REQUEST_TIMEOUT: seconds(60),
  HTTP_UPLOAD_TIMEOUT: seconds(1800),
  HTTP_IDLE_TIMEOUT: seconds(300),
  S3_ENDPOINT: z.string().url('must be a URL (http:// or https://)').optional(),
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Calls of the REDCap-compatible API one address may make per minute (docs/redcap-api.md). */
  REDCAP_API_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int('must be 1 to 100000')
    .min(1, 'must be 1 to 100000')
    .max(100_000, 'must be 1 to 100000')
    .default(120),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** The spine landmark model (ONNX file), if installed. */
  readonly spineModel?: string | undefined;
  readonly databaseUrl: string | undefined;
  /** The application's own login (a member of edc_app); unset: the owner's connections switch to edc_app. */
  readonly databaseAppUrl: string | undefined;
  /** The role the application's queries run as on PostgreSQL; one per installation on a shared server. */
  readonly databaseAppRole: string;
  /**
   * Start even when the application's PostgreSQL login is a superuser or can SET ROLE to the owner (its
   * connections could then leave the application role and rewrite the audit trail); off by default.
   */
  readonly allowOwnerLogin: boolean;
  /** The application's connections to PostgreSQL per app server (DATABASE_POOL_SIZE, default 10). */
  readonly databasePoolSize: number;
  readonly redisUrl: string | undefined;
  readonly adminPassword: string | undefined;
  readonly captchaEnabled: boolean;
  /** Seed the demo study on first start. */
  readonly demoStudy: boolean;
  readonly jwtSecret: string | undefined;
  /** Key of the patient identifiers encrypted at rest; unset: generated once into DATA_DIR/data-key. */
  readonly dataKey: string | undefined;
  readonly trustProxy: boolean;
  readonly logLevel: string;
  readonly webDist: string;
  /** `/api/docs` open to anyone, or only to a signed-in system administrator (the default). */
  readonly apiDocs: 'public' | 'admin';
  /** Hosts (name or name:port) the image-URL import may fetch from; empty: only this platform's own files. */
  readonly imageUrlHosts: readonly string[];
  /**
   * Private ranges (`address/prefix`) a listed image host may resolve to: a hospital's intranet, an explicit opt-in;
   * empty: public addresses only. Loopback, link-local, unspecified and multicast are never allowed.
   */
  readonly imageUrlPrivateNetworks: readonly string[];
  /**
   * The S3-compatible object store of the external network mode (forms §7); unset: uploads stay on the
   * local disk under DATA_DIR (the internal mode).
   */
  readonly s3: S3Config | undefined;
  /** How long a client may take to send a request (docs/deployment.md); bounds what a slow or stalled client holds. */
  readonly httpTimeouts: HttpTimeouts;
  /** Short-lived access token; the refresh token keeps a working day going. */
  readonly accessTokenSeconds: number;
  readonly refreshTokenSeconds: number;
  readonly loginRateLimitPerMinute: number;
  /** Captcha images one address may fetch per minute. */
  readonly captchaRateLimitPerMinute: number;
  /**
   * REDCap API calls one address may make per minute (REDCAP_API_RATE_LIMIT_PER_MINUTE, default 120): a
   * script's export loop or a PyCap session makes dozens of calls in seconds.
   */
  readonly redcapApiRateLimitPerMinute: number;
}

export interface S3Config {
  readonly endpoint: string | undefined;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
}

/** Milliseconds. */
export interface HttpTimeouts {
  /** From the first byte of a request to the end of its headers. */
  readonly headersMs: number;
  /** From the end of the headers to the last byte of the body, for an ordinary call. */
  readonly requestMs: number;
  /** The same for a multipart upload to a route that takes one (a 500 MB video on a slow ward link). */
  readonly uploadMs: number;
  /** A socket on which no byte moves either way. */
  readonly idleMs: number;
}

export class ConfigError extends Error {}

function httpTimeoutsOf(e: z.infer<typeof envSchema>): HttpTimeouts {
  if (e.HTTP_UPLOAD_TIMEOUT < e.HTTP_REQUEST_TIMEOUT) {
    throw new ConfigError('Invalid configuration:\n  HTTP_UPLOAD_TIMEOUT: must be at least HTTP_REQUEST_TIMEOUT');
  }
  return Object.freeze({
    headersMs: e.HTTP_HEADERS_TIMEOUT * 1000,
    requestMs: e.HTTP_REQUEST_TIMEOUT * 1000,
    uploadMs: e.HTTP_UPLOAD_TIMEOUT * 1000,
    idleMs: e.HTTP_IDLE_TIMEOUT * 1000,
  });
}

/** All of bucket and keys, or none: half a configuration would silently keep files on one server's disk. */
function s3Of(e: z.infer<typeof envSchema>): S3Config | undefined {
  const given = [e.S3_BUCKET, e.S3_ACCESS_KEY_ID, e.S3_SECRET_ACCESS_KEY].filter((v) => v !== undefined).length;
  if (given === 0 && e.S3_ENDPOINT === undefined) return undefined;
  if (given < 3 || !e.S3_BUCKET || !e.S3_ACCESS_KEY_ID || !e.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  S3: set S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together (and S3_ENDPOINT for a store other than AWS)',
    );
  }
  return Object.freeze({
    endpoint: e.S3_ENDPOINT,
    bucket: e.S3_BUCKET,
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    region: e.S3_REGION,
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (`DATABASE_URL=`) means unset, as in most deployment tools.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = envSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR === undefined ? path.join(REPOSITORY_ROOT, 'data') : path.resolve(e.DATA_DIR),
    spineModel: e.SPINE_MODEL === undefined ? undefined : path.resolve(e.SPINE_MODEL),
    databaseUrl: e.DATABASE_URL,
    databaseAppUrl: e.DATABASE_APP_URL,
    databaseAppRole: e.DATABASE_APP_ROLE,
    allowOwnerLogin: e.EDC_ALLOW_OWNER_LOGIN === 'true',
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    adminPassword: e.EDC_ADMIN_PASSWORD,
    captchaEnabled: e.EDC_CAPTCHA === 'on',
    demoStudy: e.EDC_DEMO === 'on',
    jwtSecret: e.JWT_SECRET,
    dataKey: e.EDC_DATA_KEY,
    trustProxy: e.TRUST_PROXY === 'true',
    logLevel: e.LOG_LEVEL,
    apiDocs: e.EDC_API_DOCS,
    imageUrlHosts: Object.freeze(
      (e.EDC_IMAGE_URL_HOSTS ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
    imageUrlPrivateNetworks: Object.freeze(e.EDC_IMAGE_URL_PRIVATE_NETWORKS ?? []),
    s3: s3Of(e),
    httpTimeouts: httpTimeoutsOf(e),
    webDist: path.resolve(e.WEB_DIST ?? path.join(REPOSITORY_ROOT, 'packages', 'web', 'dist')),
    accessTokenSeconds: 30 * 60,
    refreshTokenSeconds: 7 * 24 * 60 * 60,
    loginRateLimitPerMinute: 30,
    // A ward behind one NAT address signs in together at a shift change.
    captchaRateLimitPerMinute: 60,
    redcapApiRateLimitPerMinute: e.REDCAP_API_RATE_LIMIT_PER_MINUTE,
  });
}

/**
 * The configuration of a process started from the shell (the server, a maintenance command): an error in it is
 * printed and the process exits with code 2.
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}
