import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Random lowercase alphanumeric suffix from the CSPRNG (rejection sampling keeps it unbiased). */
export function randomSuffix(length = 10): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 252 && out.length < length) out += ALPHABET[b % 36];
    }
  }
  return out;
}

/** Ids of the form `<prefix>_<number>_<suffix>` (spec: upl_…, gen_…; templates tpl_…; chat: job_… render jobs, thr_… threads, msg_…
 * messages); the number is the creation time in ms so ids sort roughly by age. */
export function timeId(prefix: 'upl' | 'gen' | 'dlv' | 'job' | 'thr' | 'msg' | 'tpl' | 'blk'): string {
  return `${prefix}_${Date.now()}_${randomSuffix(10)}`;
}

export const keyId = () => `key_${randomSuffix(16)}`;
export const userId = () => `usr_${randomSuffix(16)}`;
