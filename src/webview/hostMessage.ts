// The webview side's check of what a host sends (response and notification envelopes, and the params of each
// notification), in plain code: pages ship without zod. The host side validates with the zod schemas of
// protocolSchemas.ts; a unit test holds these checks to the same answers as hostMessageSchema and notificationParams.
import type { HostMessage, NotificationMethod } from './protocol.js';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasOnly = (o: Obj, keys: readonly string[]): boolean => Object.keys(o).every((k) => keys.includes(k));
const isInt = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
const isText = (v: unknown, max: number, min = 0): boolean => typeof v === 'string' && v.length >= min && v.length <= max;

const runDirOnly = (p: Obj): boolean => hasOnly(p, ['runDir']) && isText(p['runDir'], 4096, 1);

/** Params of each notification, as notificationParams (protocolSchemas.ts) defines them. */
const notificationChecks: Record<NotificationMethod, (p: Obj) => boolean> = {
  'rollout/changed': (p) => hasOnly(p, ['runDir', 'generation', 'rolloutId']) && isText(p['runDir'], 4096, 1) && isInt(p['generation'], 0) && isText(p['rolloutId'], 256, 1),
  'run/changed': runDirOnly,
  'dataset/changed': runDirOnly,
  'view/goToStep': (p) => hasOnly(p, ['step']) && isInt(p['step'], 1),
};

function envelopeOk(m: Obj): boolean {
  if (m['kind'] === 'notification') return hasOnly(m, ['kind', 'method', 'params']) && isText(m['method'], 64) && 'params' in m;
  if (m['kind'] !== 'response' || !isInt(m['id'], 0)) return false;
  if (m['ok'] === true) return hasOnly(m, ['kind', 'id', 'ok', 'result']) && 'result' in m;
  return m['ok'] === false && hasOnly(m, ['kind', 'id', 'ok', 'error']) && typeof m['error'] === 'string';
}

/** Validates a host message in the webview (envelope, and notification params); undefined when it is not one. */
export function parseHostMessage(raw: unknown): HostMessage | undefined {
  if (!isObject(raw) || !envelopeOk(raw)) return undefined;
  if (raw['kind'] === 'notification') {
    const method = raw['method'] as string;
    const check = Object.hasOwn(notificationChecks, method) ? notificationChecks[method as NotificationMethod] : undefined;
    if (!check || !isObject(raw['params']) || !check(raw['params'])) return undefined;
  }
  return raw as HostMessage;
}
