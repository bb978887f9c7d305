import type dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { FILE_DOWNLOAD_PATH } from '@ecrf/core';
import { OBJECT_DOMAIN } from '../files/object-upload.service.js';
import { storedFileOf, type StoredFileRef } from '../files/stored-value.js';
import { AddressRefused, imageUrlNetwork, isRefusedAddress, resolvePublic } from './public-address.js';

/** The largest image fetched from a URL; the page's own uploads allow more, a picture needs no more. */
export const IMAGE_URL_MAX_BYTES = 20 * 1024 * 1024;
const TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;

export class UrlRefused extends Error {}

/** Where a URL points, as far as it is judged before any request: a stored file of this platform (its place), or a host. */
export type UrlTarget = { kind: 'own'; file: StoredFileRef } | { kind: 'remote'; url: URL };

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

/**
 * Judges a URL before anything is fetched (no server-side request to a host nobody chose):
 * - this platform's own file address (`/api/v1/fileupload/downfile?fileKey=…`, or an object address
 *   `/api/v1/fileupload/object/<key>` of the external mode; relative or on the host the request came to) is not
 *   fetched at all: the stored file is used;
 * - otherwise only http(s) to a host on the configured allow-list (EDC_IMAGE_URL_HOSTS); an IP literal in a
 *   private, loopback or link-local range is refused even when listed (and a listed name resolving to one is
 *   refused when fetched: fetchAllowed), except a private one inside privateNetworks
 *   (EDC_IMAGE_URL_PRIVATE_NETWORKS; loopback and link-local never).
 */
export function judgeUrl(
  raw: string,
  ownHost: string,
  allowed: readonly string[],
  privateNetworks: readonly string[] = [],
): UrlTarget {
  let url: URL;
  try {
    url = new URL(raw, `http://${ownHost}`);
  } catch {
    throw new UrlRefused('不是有效的URL');
  }
  const relative = raw.startsWith('/') && !raw.startsWith('//');
  const ownPath = url.pathname === FILE_DOWNLOAD_PATH || url.pathname.startsWith(OBJECT_DOMAIN);
  if ((relative || url.host.toLowerCase() === ownHost.toLowerCase()) && ownPath) {
    // The download call's address or an object address (external mode): the stored file is used, not fetched.
    const file = storedFileOf(`${url.pathname}${url.search}`);
    if (!file) throw new UrlRefused('不是本平台的文件地址');
    return { kind: 'own', file };
  }
  if (relative) throw new UrlRefused('不是本平台的文件地址');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlRefused('只支持 http 和 https 地址');
  if (url.username || url.password) throw new UrlRefused('URL 不能包含用户名或密码');
  const host = hostOf(url);
  if (net.isIP(host) && isRefusedAddress(host, privateNetworks)) throw new UrlRefused('不允许访问内网或本机地址');
  if (!allowed.some((h) => h.toLowerCase() === host || h.toLowerCase() === url.host.toLowerCase())) {
    throw new UrlRefused('该主机不在允许的图片来源列表中');
  }
  return { kind: 'remote', url };
}

/**
 * The host resolved once, to a public address (loopback, private, link-local, unique-local and the like refused), or
 * a private one inside privateNetworks.
 */
async function publicAddressOf(url: URL, privateNetworks: readonly string[]): Promise<dns.LookupAddress> {
  try {
    return await resolvePublic(hostOf(url), privateNetworks);
  } catch (err) {
    throw new UrlRefused(err instanceof AddressRefused ? '不允许访问内网或本机地址' : '无法读取图片地址');
  }
}

/**
 * Fetches an allowed URL: its host resolved once and every address checked (publicAddressOf), every connection
 * made to that address (a redirect is followed only on the same host, so with no second lookup for a rebinding
 * name to answer differently), at most three redirects, at most IMAGE_URL_MAX_BYTES (counted, not trusted from
 * content-length), within 15 s. Answers a stream of the body; the caller stores it and decides its type by its bytes.
 * privateNetworks: the ranges of EDC_IMAGE_URL_PRIVATE_NETWORKS, where a listed host may also be.
 */
export async function fetchAllowed(
  url: URL,
  privateNetworks: readonly string[] = [],
  maxBytes = IMAGE_URL_MAX_BYTES,
): Promise<Readable & { truncated?: boolean }> {
  let current = url;
  const address = await publicAddressOf(url, privateNetworks);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await get(current, address);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      const next = new URL(response.headers.location, current);
      if (next.host.toLowerCase() !== current.host.toLowerCase() || next.protocol !== current.protocol) {
        throw new UrlRefused('URL 重定向到其他主机，已拒绝');
      }
      current = next;
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new UrlRefused(`图片地址返回状态 ${status}`);
    }
    const type = String(response.headers['content-type'] ?? '').toLowerCase();
    if (type && !type.startsWith('image/') && !type.startsWith('application/octet-stream')) {
      response.resume();
      throw new UrlRefused('地址返回的内容不是图片');
    }
    if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
      response.destroy();
      throw new UrlRefused(`图片超过${Math.round(maxBytes / 1024 / 1024)}MB`);
    }
    const out = new PassThrough() as PassThrough & { truncated?: boolean };
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        out.truncated = true;
        response.destroy();
        out.end();
        return;
      }
      out.write(chunk);
    });
    response.on('end', () => out.end());
    response.on('error', (err) => out.destroy(err));
    return out;
  }
  throw new UrlRefused('URL 重定向次数过多');
}

function get(url: URL, address: dns.LookupAddress): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  // An agent of its own: no pooled socket of another fetch, and its lookup answers the checked address only
  // (TLS still verifies the certificate against the URL's name).
  const agent = new client.Agent({ keepAlive: false, lookup: imageUrlNetwork.pin(address) });
  return new Promise((resolve, reject) => {
    const request = client.get(url, { agent, timeout: TIMEOUT_MS, headers: { accept: 'image/*' } }, resolve);
    request.on('timeout', () => request.destroy(new UrlRefused('图片地址响应超时')));
    request.on('error', (err) => reject(err instanceof UrlRefused ? err : new UrlRefused('无法读取图片地址')));
  });
}
