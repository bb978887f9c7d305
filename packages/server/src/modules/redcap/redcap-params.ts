// The parameters of a REDCap API call as its clients send them: form-encoded or multipart, lists spelled three ways.
import type { FastifyRequest } from 'fastify';
import { ApiRefusal } from './api-token.service.js';

export type Params = Record<string, unknown>;

/** A multipart call's parameters, read part by part (the file is streamed, never held in memory). */
export const multipartParams = new WeakMap<FastifyRequest, Params>();

export const paramsOf = (request: FastifyRequest): Params =>
  multipartParams.get(request) ?? ((request.body && typeof request.body === 'object' ? request.body : {}) as Params);

/** Whether the call carries the parameter at all (an empty value counts: REDCap reads `data=` as an import). */
export const hasParam = (params: Params, name: string) => params[name] !== undefined;

export const text = (params: Params, name: string): string => {
  const v = params[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first.trim() : '';
};

/** REDCap's list parameters, however a client spells them: `fields[0]=a`, `fields[]=a`, `fields=a,b`. */
export function list(params: Params, name: string): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (key !== name && !new RegExp(`^${name}\\[\\d*\\]$`).test(key)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string') {
        out.push(
          ...v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        );
      }
    }
  }
  return out;
}

export function choice<T extends string>(params: Params, name: string, allowed: readonly T[], fallback: T): T {
  const v = text(params, name);
  if (v === '') return fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ApiRefusal(400, `参数 ${name} 的值 ${v} 无效，可用：${allowed.join('、')}`);
  }
  return v as T;
}

/** REDCap's booleans as its clients write them: PyCap sends Python's `True`/`False`, others `true`, `1`. */
export function flag(params: Params, name: string): boolean {
  const v = text(params, name).toLowerCase();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw new ApiRefusal(400, `参数 ${name} 的值 ${text(params, name)} 无效，可用：true、false`);
}
