import type { FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';
import type { Config } from '../config.js';
import { objectStoreOrigin } from '../shared/object-store-origin.js';

/**
 * The policy every answer carries. Scripts come only from our own files (the Vite build has no
 * inline script); styles allow 'unsafe-inline' because antd writes its CSS-in-JS into <style>
 * elements at run time. Images and frames allow blob: for files fetched with the session and
 * shown or printed from memory (CRF overview images, the hidden print frame); data: images
 * for the captcha.
 *
 * The document camera's service (forms §7) runs on the user's own machine (port 38088 by default, another
 * port where the site's service uses one): the page calls it and shows its live view, so loopback
 * addresses are allowed for connections and images, and nothing else outside our origin.
 *
 * In the external network mode (docs/object-storage.md) the browser posts files to the object store and shows
 * them from it (this server's read path answers with a short-lived address there): its origin is allowed for
 * connections, images and media.
 */
export const CAMERA_SERVICE_SOURCES = ['http://127.0.0.1:*', 'http://localhost:*'];

export function contentSecurityPolicy(tls: boolean, objectStore: readonly string[] = []) {
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'blob:', ...CAMERA_SERVICE_SOURCES, ...objectStore],
    mediaSrc: ["'self'", 'blob:', ...objectStore],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", ...CAMERA_SERVICE_SOURCES, ...objectStore],
    frameSrc: ["'self'", 'blob:'],
    workerSrc: ["'self'", 'blob:'],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    // Only behind TLS: on a plain-HTTP ward network it would send the browser to an https that isn't there.
    upgradeInsecureRequests: tls ? [] : null,
  };
}

export async function installSecurityHeaders(app: FastifyInstance, config: Config) {
  // TRUST_PROXY=true is how a deployment says a TLS-terminating proxy stands in front.
  const tls = config.trustProxy;
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: contentSecurityPolicy(tls, config.s3 ? [objectStoreOrigin(config.s3)] : []),
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: tls ? { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true } : false,
    // The app loads nothing cross-origin; embedding isolation would only break the print frame's blob PDF.
    crossOriginEmbedderPolicy: false,
  });
}
